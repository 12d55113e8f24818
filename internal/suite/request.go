package suite

import (
	"encoding/json"
	"fmt"
	"net/textproto"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// requestBlock is `request { extra_body = {...}  headers = {...} }`: what
// every request of a scenario carries besides the workload's fields. A
// scenario's block merges into the defaults' key by key: a key the
// scenario sets replaces the defaults' (a nested object whole), a key set
// to null there is not sent, and the other keys of both are kept.
type requestBlock struct {
	ExtraBody *hcl.Attribute `hcl:"extra_body,optional"`
	Headers   *hcl.Attribute `hcl:"headers,optional"`
	DefRange  hcl.Range      `hcl:",def_range"`
}

// ownedBodyKeys are the body members llmgate writes itself, with why a
// suite may not set them.
var ownedBodyKeys = map[string]string{
	"model":                 "llmgate sends the target's model in every request",
	"prompt":                "the workload writes the prompt",
	"messages":              "the workload writes the chat messages",
	"stream":                "llmgate streams every request: its timings are those of the stream's chunks",
	"stream_options":        "llmgate asks for usage in the stream (include_usage, continuous_usage_stats) to count tokens",
	"max_tokens":            "the workload's output_tokens sets the answer's length",
	"max_completion_tokens": "the workload's output_tokens sets the answer's length (llmgate sends it as max_tokens)",
	"min_tokens":            "the workload's output_tokens and ignore_eos set the answer's length",
	"ignore_eos":            "the workload's ignore_eos attribute sets it",
	"n":                     "llmgate times one answer a request",
	"best_of":               "llmgate times one answer a request",
}

// structuredBodyKeys are the members that ask for structured output: the
// structured workload sets response_format from its schema and checks
// every answer against it, so another constraint would change what it
// measures. Other workloads may send them.
var structuredBodyKeys = []string{"response_format", "structured_outputs", "guided_json", "guided_regex", "guided_choice", "guided_grammar", "guided_decoding_backend", "guided_whitespace_pattern"}

// ownedHeaders are the headers llmgate or Go's HTTP client set, with why a
// suite may not set them (Authorization only when the target has an
// api_key).
var ownedHeaders = map[string]string{
	"Content-Type":      "llmgate sends JSON bodies",
	"Content-Length":    "the HTTP client sets it from the body",
	"Transfer-Encoding": "the HTTP client sets it",
	"Host":              "it is the target's",
	"Accept":            "llmgate asks for an event stream",
	"Accept-Encoding":   "llmgate asks for no compression, which would hold chunks back and skew every timing",
	"Connection":        "llmgate manages its connections (keep-alive, one request at a time on each)",
	"Keep-Alive":        "llmgate manages its connections",
	"Proxy-Connection":  "llmgate manages its connections",
	"Te":                "it is a hop-by-hop header the HTTP client owns",
	"Trailer":           "it is a hop-by-hop header the HTTP client owns",
	"Upgrade":           "llmgate speaks HTTP/1.1 on every connection",
}

// requestMember is one extra body member or header before merging: its
// key, value and where the suite wrote it.
type requestMember struct {
	key  string
	val  cty.Value
	attr *hcl.Attribute
	at   hcl.Range
}

// requestShape evaluates the defaults' and the scenario's request blocks
// (either may be nil) into r, the scenario's overriding the defaults' key
// by key, and returns the values that are secrets (the values of headers
// whose names say so, and string values under body keys that do).
func requestShape(ev *evaluator, defs, sc *requestBlock, r *runspec.Request, kind runspec.WorkloadKind, apiKey bool) (secrets []string) {
	body := mergeMembers(ev, defs, sc, func(b *requestBlock) *hcl.Attribute { return b.ExtraBody }, "extra_body", strings.Clone)
	var enc []byte
	for _, m := range body {
		if why := refusedBodyKey(m.key, kind); why != "" {
			memberError(ev, m, "Body member llmgate sets", "extra_body[%q] is refused: %s. Remove it from extra_body.", m.key, why)
			continue
		}
		val, err := ctyjson.Marshal(m.val, m.val.Type())
		if err != nil {
			memberError(ev, m, "Invalid extra_body member", "extra_body[%q] cannot be sent as JSON: %s.", m.key, err)
			continue
		}
		key, _ := json.Marshal(m.key)
		if len(enc) > 0 {
			enc = append(enc, ',')
		}
		enc = append(append(append(enc, key...), ':'), val...)
		if untrusted.SecretName(m.key) {
			secrets = append(secrets, stringLeaves(m.val)...)
		} else {
			secrets = append(secrets, secretLeaves(m.val)...)
		}
	}
	r.ExtraBody = enc

	for _, m := range mergeMembers(ev, defs, sc, func(b *requestBlock) *hcl.Attribute { return b.Headers }, "headers", textproto.CanonicalMIMEHeaderKey) {
		name := m.key
		if p := headerNameProblem(name); p != "" {
			memberError(ev, m, "Invalid header name", "headers[%q] %s; a header name is letters, digits and !#$%%&'*+-.^_`|~.", name, p)
			continue
		}
		if why := refusedHeader(name, apiKey); why != "" {
			memberError(ev, m, "Header llmgate sets", "headers[%q] is refused: %s. Remove it from headers.", name, why)
			continue
		}
		v, ok := scalarText(m.val)
		if !ok {
			memberError(ev, m, "Incorrect attribute value type", "headers[%q] must be a string, not %s.", name, friendlyType(m.val.Type()))
			continue
		}
		if p := headerValueProblem(v); p != "" {
			memberError(ev, m, "Invalid header value", "headers[%q] %s; HTTP sends a header's value on one line of printable text.", name, p)
			continue
		}
		h := runspec.Header{Name: name, Value: v, Secret: secretHeader(name)}
		if h.Secret {
			secrets = append(secrets, v)
		}
		r.Headers = append(r.Headers, h)
	}
	return secrets
}

// mergeMembers evaluates the attribute get picks from each block as an
// object and merges the scenario's members over the defaults', keyed by
// norm of the key; null members are dropped. The result is sorted by key.
func mergeMembers(ev *evaluator, defs, sc *requestBlock, get func(*requestBlock) *hcl.Attribute, what string, norm func(string) string) []requestMember {
	merged := map[string]requestMember{}
	for _, b := range []*requestBlock{defs, sc} {
		if b == nil {
			continue
		}
		attr := get(b)
		v, ok := ev.value(attr)
		if !ok {
			continue
		}
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			ev.errorAt(attr, "Incorrect attribute value type", "%s must be an object, like { temperature = 0.7 }, not %s.", what, friendlyType(v.Type()))
			continue
		}
		for it := v.ElementIterator(); it.Next(); {
			k, el := it.Element()
			key := norm(k.AsString())
			if el.IsNull() {
				delete(merged, key)
				continue
			}
			el, _ = el.UnmarkDeep()
			merged[key] = requestMember{key: key, val: el, attr: attr, at: memberKeyRange(ev, attr, k.AsString())}
		}
	}
	out := make([]requestMember, 0, len(merged))
	for _, m := range merged {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// memberKeyRange is where attr's object constructor writes key, or the
// attribute's value when it is not written there as such.
func memberKeyRange(ev *evaluator, attr *hcl.Attribute, key string) hcl.Range {
	if oc, ok := attr.Expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range oc.Items {
			k, d := item.KeyExpr.Value(ev.ctx)
			if d.HasErrors() || !k.IsKnown() || k.IsNull() || k.Type() != cty.String {
				continue
			}
			if k.AsString() == key {
				return item.KeyExpr.Range()
			}
		}
	}
	return attr.Expr.Range()
}

func memberError(ev *evaluator, m requestMember, summary, format string, a ...any) {
	*ev.diags = append(*ev.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, a...),
		Subject:  m.at.Ptr(),
		Context:  m.attr.Range.Ptr(),
	})
}

// refusedBodyKey says why extra_body may not hold key for a workload of
// kind, "" when it may.
func refusedBodyKey(key string, kind runspec.WorkloadKind) string {
	if why, ok := ownedBodyKeys[key]; ok {
		return why
	}
	if kind == runspec.WorkloadStructured && contains(structuredBodyKeys, key) {
		return "the structured workload sets response_format from its schema and checks every answer against it"
	}
	return ""
}

// refusedHeader says why headers may not hold the canonical name, "" when
// they may.
func refusedHeader(name string, apiKey bool) string {
	if why, ok := ownedHeaders[name]; ok {
		return why
	}
	if strings.HasPrefix(name, "X-Llmgate-") {
		return "the X-Llmgate- headers are llmgate's own (X-Llmgate-Calibration marks its calibration requests)"
	}
	if name == "Authorization" && apiKey {
		return "the target's api_key is sent as Authorization: Bearer; set one or the other"
	}
	return ""
}

// secretHeader reports whether a header's value is a secret by its name:
// Authorization, Proxy-Authorization, Cookie, a session, or a name that
// says secret as an environment variable's would (X-Api-Key, X-Auth-Token).
func secretHeader(name string) bool {
	low := strings.ToLower(name)
	for _, w := range []string{"auth", "cookie", "session", "signature"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return untrusted.SecretName(name)
}

// headerNameProblem says what makes name no HTTP header name (RFC 9110's
// token), "" when nothing does.
func headerNameProblem(name string) string {
	if name == "" {
		return "is empty"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return fmt.Sprintf("holds %q at byte %d", string(rune(c)), i)
	}
	return ""
}

// headerValueProblem says what makes v no header value HTTP can send, ""
// when nothing does.
func headerValueProblem(v string) string {
	for i, r := range v {
		if r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("holds the control character %U at byte %d", r, i)
		}
	}
	if strings.TrimSpace(v) != v {
		return "starts or ends with spaces, which HTTP drops"
	}
	return ""
}

// secretLeaves returns the string values under keys, at any depth of v,
// whose names say secret (an api_key inside chat_template_kwargs).
func secretLeaves(v cty.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	ty := v.Type()
	if !ty.IsObjectType() && !ty.IsMapType() && !ty.IsTupleType() && !ty.IsListType() {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		k, el := it.Element()
		if k.Type() == cty.String && untrusted.SecretName(k.AsString()) {
			out = append(out, stringLeaves(el)...)
			continue
		}
		out = append(out, secretLeaves(el)...)
	}
	return out
}
