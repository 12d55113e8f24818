package suite

import (
	"strings"
	"testing"
)

// condSuite moves its scenario between a server and the simulator on var.simulate.
const condSuite = `
variable "simulate" { default = false }
server "vllm" {
  image = "vllm/vllm-openai:v0.11.0"
  model = "m"
}
simulator "sim" {}
scenario "s" {
  target = var.simulate ? simulator.sim : server.vllm
  load {
    concurrency = 1
    requests    = 1
  }
}
`

func TestConditionalTarget(t *testing.T) {
	for _, tt := range []struct{ simulate, want string }{{"false", "server.vllm"}, {"true", "simulator.sim"}} {
		s := mustLoad(t, condSuite, Options{Vars: map[string]string{"simulate": tt.simulate}})
		if got := s.Plan().Runs()[0].Target.Ref(); got != tt.want {
			t.Errorf("simulate=%s: target %s, want %s", tt.simulate, got, tt.want)
		}
	}
}

func TestConditionalTargetErrors(t *testing.T) {
	tests := []struct{ target, want string }{
		// The branch not taken is checked too.
		{`var.simulate ? simulator.sim : server.vlm`, `Reference to undefined target; There is no server block named "vlm"`},
		{`var.simulate ? simulator.sim : "server.vllm"`, "Invalid target reference"},
		{`var.nosuch ? simulator.sim : server.vllm`, `nosuch`},
		{`"yes" ? simulator.sim : server.vllm`, "must be true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			src := strings.Replace(condSuite, "var.simulate ? simulator.sim : server.vllm", tt.target, 1)
			errs := errorsOf(t, src)
			if len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), tt.want) {
				t.Errorf("errors %q, want one containing %q", errs, tt.want)
			}
		})
	}
}
