package suite

import (
	"strings"
	"testing"
)

// TestDCGMExporterOnEveryTargetKind: each kind of target block takes a
// dcgm_exporter, which reaches the plan and its text.
func TestDCGMExporterOnEveryTargetKind(t *testing.T) {
	src := `
server "vllm" {
  image         = "vllm/vllm-openai:v0.11.0"
  model         = "m"
  dcgm_exporter = "http://gpu-node:9400/metrics"
}
endpoint "staging" {
  url           = "http://vllm.staging:8000"
  dcgm_exporter = "https://dcgm.staging/metrics"
}
simulator "sim" {
  dcgm_exporter = "http://127.0.0.1:9400/metrics"
}
simulator "plain" {}
scenario "a" {
  target = server.vllm
  load {
    concurrency = 1
    requests    = 10
  }
}
`
	s, diags := loadSource("dcgm.hcl", []byte(src), Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for ref, want := range map[string]string{
		"server.vllm":      "http://gpu-node:9400/metrics",
		"endpoint.staging": "https://dcgm.staging/metrics",
		"simulator.sim":    "http://127.0.0.1:9400/metrics",
		"simulator.plain":  "",
	} {
		if got := s.Targets[ref].DCGMExporter; got != want {
			t.Errorf("%s: dcgm_exporter %q, want %q", ref, got, want)
		}
	}
	var b strings.Builder
	if err := s.Plan().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "group 1: server.vllm (image vllm/vllm-openai:v0.11.0, model m, GPUs from http://gpu-node:9400/metrics)") {
		t.Errorf("plan text:\n%s", b.String())
	}
}
