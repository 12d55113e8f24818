package suite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/runspec"
)

// TestRequestBlockMerges checks that a scenario's request block merges
// into the defaults' key by key: its keys replace the defaults' (a nested
// object whole), null drops one, the rest of both are kept; header names
// merge case-insensitively, and the body is encoded once, keys sorted.
func TestRequestBlockMerges(t *testing.T) {
	src := `
defaults {
  load {
    concurrency = 1
    requests    = 4
  }
  request {
    extra_body = { temperature = 0.7, top_p = 0.9, chat_template_kwargs = { enable_thinking = true, x = 1 } }
    headers    = { "X-Tenant" = "team-a", "x-region" = "eu" }
  }
}
scenario "inherits" {}
scenario "overrides" {
  request {
    extra_body = { top_p = null, chat_template_kwargs = { enable_thinking = false }, seed = 7 }
    headers    = { "x-tenant" = "team-b", "X-Api-Key" = "k-0123456789" }
  }
}
`
	s := mustLoad(t, src, Options{})
	got := map[string]runspec.Request{}
	for _, sc := range s.Scenarios {
		got[sc.Name] = sc.Runs[0].Load.Request
	}
	want := map[string]struct {
		body    string
		headers []runspec.Header
	}{
		"inherits": {`"chat_template_kwargs":{"enable_thinking":true,"x":1},"temperature":0.7,"top_p":0.9`,
			[]runspec.Header{{Name: "X-Region", Value: "eu"}, {Name: "X-Tenant", Value: "team-a"}}},
		"overrides": {`"chat_template_kwargs":{"enable_thinking":false},"seed":7,"temperature":0.7`,
			[]runspec.Header{{Name: "X-Api-Key", Value: "k-0123456789", Secret: true}, {Name: "X-Region", Value: "eu"}, {Name: "X-Tenant", Value: "team-b"}}},
	}
	for name, w := range want {
		r := got[name]
		if string(r.ExtraBody) != w.body {
			t.Errorf("%s: extra body %s, want %s", name, r.ExtraBody, w.body)
		}
		if !slices.Equal(r.Headers, w.headers) {
			t.Errorf("%s: headers %+v, want %+v", name, r.Headers, w.headers)
		}
	}
	if !slices.Contains(s.Secrets, "k-0123456789") {
		t.Errorf("secrets %q lack the X-Api-Key value", s.Secrets)
	}
	if slices.Contains(s.Secrets, "team-a") || slices.Contains(s.Secrets, "team-b") {
		t.Errorf("secrets %q hold a value that is not one", s.Secrets)
	}
}

// TestRequestBlockRefuses checks that the body keys and headers llmgate
// sets are refused, each at its key's file:line:col with the reason.
func TestRequestBlockRefuses(t *testing.T) {
	cases := []struct {
		name, workload, target, attrs string
		summary, where, reason        string
	}{
		{"model", "", "", `extra_body = { model = "other" }`, "Body member llmgate sets", "suite.hcl:14:20", "target's model"},
		{"stream", "", "", `extra_body = { temperature = 0, stream = false }`, "Body member llmgate sets", "suite.hcl:14:37", "streams every request"},
		{"stream_options", "", "", `extra_body = { "stream_options" = {} }`, "Body member llmgate sets", "suite.hcl:14:20", "usage in the stream"},
		{"max_tokens", "", "", `extra_body = { max_tokens = 9 }`, "Body member llmgate sets", "suite.hcl:14:20", "output_tokens"},
		{"max_completion_tokens", "", "", `extra_body = { max_completion_tokens = 9 }`, "Body member llmgate sets", "suite.hcl:14:20", "output_tokens"},
		{"min_tokens", "", "", `extra_body = { min_tokens = 9 }`, "Body member llmgate sets", "suite.hcl:14:20", "output_tokens"},
		{"ignore_eos", "", "", `extra_body = { ignore_eos = false }`, "Body member llmgate sets", "suite.hcl:14:20", "ignore_eos attribute"},
		{"prompt", "", "", `extra_body = { prompt = "x" }`, "Body member llmgate sets", "suite.hcl:14:20", "writes the prompt"},
		{"messages", "", "", `extra_body = { messages = [] }`, "Body member llmgate sets", "suite.hcl:14:20", "chat messages"},
		{"response_format structured", `kind = "structured"`, "", `extra_body = { response_format = { type = "json_object" } }`, "Body member llmgate sets", "suite.hcl:14:20", "from its schema"},
		{"guided_json structured", `kind = "structured"`, "", `extra_body = { guided_json = {} }`, "Body member llmgate sets", "suite.hcl:14:20", "from its schema"},
		{"content-type", "", "", `headers = { "content-type" = "text/plain" }`, "Header llmgate sets", "suite.hcl:14:17", "JSON bodies"},
		{"accept-encoding", "", "", `headers = { "Accept-Encoding" = "gzip" }`, "Header llmgate sets", "suite.hcl:14:17", "compression"},
		{"host", "", "", `headers = { Host = "x" }`, "Header llmgate sets", "suite.hcl:14:17", "target's"},
		{"calibration", "", "", `headers = { "X-Llmgate-Calibration" = "0" }`, "Header llmgate sets", "suite.hcl:14:17", "llmgate's own"},
		{"authorization with api_key", "", "target = endpoint.e", `headers = { Authorization = "Bearer abcdefgh" }`, "Header llmgate sets", "suite.hcl:14:17", "api_key"},
		{"bad name", "", "", `headers = { "X Tenant" = "a" }`, "Invalid header name", "suite.hcl:14:17", "holds \" \""},
		{"bad value", "", "", `headers = { "X-Tenant" = "a\nb" }`, "Invalid header value", "suite.hcl:14:17", "control character"},
		{"not an object", "", "", `extra_body = "temperature=0"`, "Incorrect attribute value type", "suite.hcl:14:18", "must be an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf(`endpoint "e" {
  url     = "http://127.0.0.1:8000"
  api_key = "sk-test-0123456789"
}
scenario "a" {
  %s
  workload {
    %s
  }
  load {
    concurrency = 1
  }
  request {
    %s
  }
}
`, c.target, c.workload, c.attrs)
			_, diags := loadText(t, src, Options{})
			var found []string
			for _, d := range diags {
				if d.Severity != hcl.DiagError {
					continue
				}
				found = append(found, d.Error())
				if !strings.Contains(d.Error(), c.summary) || !strings.Contains(d.Error(), c.reason) {
					continue
				}
				at := fmt.Sprintf("%s:%d:%d", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column)
				if at != c.where {
					t.Errorf("%s at %s, want %s", d.Summary, at, c.where)
				}
				return
			}
			t.Errorf("no %q error with %q; errors: %q", c.summary, c.reason, found)
		})
	}
}

// TestRequestBlockAllows checks what llmgate does not own passes: sampling
// parameters, response_format outside the structured workload, and
// Authorization on a target without an api_key (as a secret).
func TestRequestBlockAllows(t *testing.T) {
	src := `
scenario "a" {
  load {
    concurrency = 1
    requests    = 1
  }
  request {
    extra_body = { response_format = { type = "json_object" }, stop = ["\n"] }
    headers    = { Authorization = "Bearer abcdefghijk", Cookie = "sid=0123456789" }
  }
}
`
	s := mustLoad(t, src, Options{})
	r := s.Scenarios[0].Runs[0].Load.Request
	if want := `"response_format":{"type":"json_object"},"stop":["\n"]`; string(r.ExtraBody) != want {
		t.Errorf("extra body %s, want %s", r.ExtraBody, want)
	}
	for _, h := range r.Headers {
		if !h.Secret {
			t.Errorf("header %s is not taken for a secret", h.Name)
		}
	}
	for _, v := range []string{"Bearer abcdefghijk", "sid=0123456789"} {
		if !slices.Contains(s.Secrets, v) {
			t.Errorf("secrets %q lack %q", s.Secrets, v)
		}
	}
}

// TestPlanShowsRequestShape checks that --plan prints the request shape,
// a secret header's value masked.
func TestPlanShowsRequestShape(t *testing.T) {
	src := `
scenario "a" {
  load {
    concurrency = 1
    requests    = 1
  }
  request {
    extra_body = { temperature = 0.7 }
    headers    = { "X-Tenant" = "team-a", "X-Api-Key" = "k-0123456789" }
  }
}
`
	s := mustLoad(t, src, Options{})
	p := s.Plan()
	var b strings.Builder
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `    request:  extra_body {"temperature":0.7}; headers X-Api-Key: ***, X-Tenant: team-a`
	if !strings.Contains(b.String(), want+"\n") || strings.Contains(b.String(), "k-0123456789") {
		t.Errorf("plan:\n%s\nwant the line %q and no secret", b.String(), want)
	}
}
