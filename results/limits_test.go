package results

import "testing"

// TestLimitProblem checks the words of each kind of problem.
func TestLimitProblem(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, ""}, {LimitMemory.Max, ""},
		{LimitMemory.Max + 1, "= 1.6777217e+07: a memory size (MiB) above 1.6777216e+07 is absurd"},
		{-1, "= -1: a memory size (MiB) cannot be negative"},
	} {
		if got := LimitMemory.Problem(tt.v); got != tt.want {
			t.Errorf("Problem(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
