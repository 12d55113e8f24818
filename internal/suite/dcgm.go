package suite

import (
	"net/url"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmgate/llmgate/internal/plan"
)

// fillDCGMExporter validates a target block's dcgm_exporter, the URL of an
// NVIDIA DCGM exporter's metrics page that reports the target's GPUs.
func fillDCGMExporter(ev *evaluator, attr *hcl.Attribute, t *plan.Target) {
	s, ok := ev.str(attr)
	if !ok {
		return
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		ev.errorAt(attr, "Invalid DCGM exporter URL", "dcgm_exporter = %q does not parse: %v.", s, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		ev.errorAt(attr, "Invalid DCGM exporter URL", "dcgm_exporter = %q must be an http:// or https:// address with a host, like \"http://gpu-node:9400/metrics\".", s)
	case u.Path == "" || u.Path == "/":
		ev.errorAt(attr, "Invalid DCGM exporter URL", "dcgm_exporter = %q names no page: the exporter serves its metrics at a path, like \"%s://%s/metrics\".", s, u.Scheme, u.Host)
	default:
		t.DCGMExporter = s
	}
}
