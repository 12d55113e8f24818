package runspec

import "testing"

func TestKindsValid(t *testing.T) {
	for _, k := range WorkloadKinds {
		if !k.Valid() {
			t.Errorf("workload kind %q is not Valid", k)
		}
	}
	for _, k := range []WorkloadKind{"", "Random", "mix"} {
		if k.Valid() {
			t.Errorf("workload kind %q is Valid", k)
		}
	}
	for _, s := range []RampShape{RampLinear, RampExponential} {
		if !s.Valid() {
			t.Errorf("ramp shape %q is not Valid", s)
		}
	}
	for _, s := range []RampShape{"", "step"} {
		if s.Valid() {
			t.Errorf("ramp shape %q is Valid", s)
		}
	}
}

func TestTargetKindValid(t *testing.T) {
	for _, k := range []TargetKind{KindServer, KindEndpoint, KindSimulator} {
		if !k.Valid() {
			t.Errorf("target kind %q is not Valid", k)
		}
	}
	for _, k := range []TargetKind{"", "Server", "container"} {
		if k.Valid() {
			t.Errorf("target kind %q is Valid", k)
		}
	}
	if got := (&Target{Kind: KindServer, Name: "vllm"}).Ref(); got != "server.vllm" {
		t.Errorf("Ref() = %q, want server.vllm", got)
	}
}
