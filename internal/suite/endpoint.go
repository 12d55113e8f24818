package suite

import (
	"net/url"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmgate/llmgate/internal/plan"
)

// endpointBlock is `endpoint "name" {...}`: a server that is already running.
type endpointBlock struct {
	URL          *hcl.Attribute `hcl:"url"`
	Model        *hcl.Attribute `hcl:"model,optional"`
	APIKey       *hcl.Attribute `hcl:"api_key,optional"`
	DCGMExporter *hcl.Attribute `hcl:"dcgm_exporter,optional"`
}

// fill sets t's fields from the block, validating each.
func (b *endpointBlock) fill(ev *evaluator, t *plan.Target) {
	if s, ok := ev.str(b.URL); ok {
		u, err := url.Parse(s)
		switch {
		case err != nil:
			ev.errorAt(b.URL, "Invalid URL", "url = %q does not parse: %v.", s, err)
		case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
			ev.errorAt(b.URL, "Invalid URL", "url = %q must be an http:// or https:// address with a host, like \"http://vllm.staging:8000\".", s)
		default:
			t.URL = s
		}
	}
	t.Model, _ = ev.str(b.Model)
	t.APIKey, _ = ev.str(b.APIKey)
	fillDCGMExporter(ev, b.DCGMExporter, t)
}
