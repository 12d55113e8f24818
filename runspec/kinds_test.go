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
