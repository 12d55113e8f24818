package suite

import (
	"strings"
	"testing"
)

// The probes: sweep values ("@team", U+202E) passed into run names, and a
// suite's labels and messages reached every report raw. Labels and sweep
// values that a results file could not hold as names are refused at
// validate; "@team" is a fine name (the markdown sinks defuse it).
func TestLabelsAndMessagesAreChecked(t *testing.T) {
	scenario := func(sweep, assert string) string {
		return "suite \"s\" {}\nsimulator \"sim\" {}\nscenario \"chat\" {\n  target = simulator.sim\n  sweep {\n    model_variant = [" + sweep + "]\n  }\n  workload {\n    kind = sweep.model_variant == \"\" ? \"random\" : \"random\"\n  }\n  load {\n    concurrency = 1\n    requests    = 1\n  }\n" + assert + "}\n"
	}
	for _, tt := range []struct{ src, want string }{
		{scenario(`"a\u202eb"`, ""), "bidirectional control"},
		{scenario(`"`+strings.Repeat("v", 129)+`"`, ""), "at most 128 bytes"},
		{scenario(`"x"`, "  assert \"fast\\nlane\" {\n    condition = ttft.p95 < 1\n  }\n"), "Invalid assert name"},
		{scenario(`"x"`, "  assert \"a\u2066b\" {\n    condition = ttft.p95 < 1\n  }\n"), "Invalid assert name"},
		{scenario(`"x"`, "  assert \"fast\" {\n    condition     = ttft.p95 < 1\n    error_message = \"one\\n::error::two\"\n  }\n"), "Invalid error_message"},
		{strings.Replace(scenario(`"x"`, ""), `suite "s" {}`, `suite "s\u202e" {}`, 1), "Invalid suite name"},
	} {
		_, diags := loadText(t, tt.src, Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
			t.Errorf("want %q, got %v\n%s", tt.want, diags, tt.src)
		}
	}
	s := mustLoad(t, scenario(`"@team", "meta-llama/Llama-3.1-8B"`, "  assert \"fast\" {\n    condition     = ttft.p95 < 1\n    error_message = \"P95 TTFT under 1 ms, @team\"\n  }\n"), Options{})
	if got := runNames(s); strings.Join(got, ",") != "chat[model_variant=@team],chat[model_variant=meta-llama/Llama-3.1-8B]" {
		t.Errorf("runs %v", got)
	}
}
