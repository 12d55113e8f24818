package suite

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestHostileValueMessages pins the messages for values that used to be
// explained wrongly or not at all.
func TestHostileValueMessages(t *testing.T) {
	cases := []struct {
		name, src string
		sev       hcl.DiagnosticSeverity
		summary   string
		detail    []string // substrings
		notDetail string
	}{
		{name: "declared variable in a default", sev: hcl.DiagError, summary: "Variable in a variable's default",
			src:    "variable \"a\" {\n  default = var.b\n}\nvariable \"b\" {\n  default = 2\n}\nscenario \"x\" {\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n",
			detail: []string{`variable "b" is declared`, "--var a=VALUE"}, notDetail: "No variable named"},
		{name: "huge whole number", sev: hcl.DiagError, summary: "Number too large",
			src:    "scenario \"x\" {\n  load {\n    concurrency = 1\n    requests = 9223372036854775807\n  }\n}\n",
			detail: []string{"requests = 9223372036854775807"}, notDetail: "9223372036854776000"},
		{name: "only invalid targets", sev: hcl.DiagError, summary: "Reference to undefined target",
			src:    "server \"my.server\" {\n  image = \"i\"\n  model = \"m\"\n}\nscenario \"x\" {\n  target = server.other\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n",
			detail: []string{`server "my.server" (line 1) could not be read`}, notDetail: "declares no targets"},
		{name: "absurd concurrency", sev: hcl.DiagWarning, summary: "Absurd concurrency",
			src: "scenario \"x\" {\n  load {\n    concurrency = 1e8\n    requests = 10\n  }\n}\n", detail: []string{"concurrency = 100000000"}},
		{name: "absurd input length", sev: hcl.DiagWarning, summary: "Absurd input length",
			src:    "scenario \"x\" {\n  workload {\n    kind = \"random\"\n    input_tokens = 2e9\n  }\n  load {\n    concurrency = 1\n    requests = 10\n  }\n}\n",
			detail: []string{"input_tokens = 2000000000"}},
		{name: "long idle timeout", sev: hcl.DiagWarning, summary: "Long idle timeout",
			src: "scenario \"x\" {\n  load {\n    concurrency = 1\n    requests = 10\n    idle_timeout = \"30s\"\n  }\n}\n", detail: []string{"idle_timeout = 30s", "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"}},
		{name: "absurd rate", sev: hcl.DiagWarning, summary: "Absurd rate",
			src: "scenario \"x\" {\n  load {\n    rate = 1e9\n    requests = 10\n  }\n}\n", detail: []string{"rate = 1000000000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := loadSource("m.hcl", []byte(c.src), Options{Getenv: func(string) string { return "" }})
			var found *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == c.summary && d.Severity == c.sev {
					found = d
				}
				if c.notDetail != "" && strings.Contains(d.Detail, c.notDetail) {
					t.Errorf("old message still given: %s: %s", d.Summary, d.Detail)
				}
			}
			if found == nil {
				t.Fatalf("no %q; got %v", c.summary, diags)
			}
			for _, want := range c.detail {
				if !strings.Contains(found.Detail, want) {
					t.Errorf("detail %q lacks %q", found.Detail, want)
				}
			}
		})
	}
}

// TestSecretsCollected checks Suite.Secrets holds the secrets the suite
// read, also when it has errors: env() values of variables named as
// secrets, sensitive variables, server env values named as secrets and
// every api_key; and not the rest (the probe: env("CI") and a server env
// "true" masked every JSON true in the results file).
func TestSecretsCollected(t *testing.T) {
	env := map[string]string{"TOKEN": "from-env-123", "OTHER": "unused-456", "CI": "true", "REGION": "eu-west-1", "HF": "hf-in-a-plain-name", "DB_PASSWORD": "pw-0123"}
	src := `
variable "region" {
  default = env("REGION")
}
variable "hf" {
  default   = env("HF")
  sensitive = true
}
server "vllm" {
  image   = "img"
  model   = "m"
  env     = { HF_TOKEN = env("TOKEN"), LEVEL = "debug-level", CI = env("CI"), REGION = var.region, HUB = var.hf, DB_PASSWORD = "pw-literal", PASS = env("DB_PASSWORD") }
  api_key = "key-789"
}
scenario "x" {
  load {
    concurrency = 1
    requests = 1
  }
}
`
	for _, broken := range []bool{false, true} {
		s := src
		if broken {
			s += "bogus {}\n"
		}
		got, diags := loadSource("s.hcl", []byte(s), Options{Getenv: func(k string) string { return env[k] }})
		if diags.HasErrors() != broken {
			t.Fatalf("broken=%v: diags %v", broken, diags)
		}
		want := "from-env-123,hf-in-a-plain-name,key-789,pw-0123,pw-literal"
		if strings.Join(got.Secrets, ",") != want {
			t.Errorf("broken=%v: Secrets = %q, want %s", broken, got.Secrets, want)
		}
	}
}
