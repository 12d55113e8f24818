package suite

import (
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

const selfCheckSuite = `
defaults {
  load {
    concurrency = 2
    requests    = 10
    self_check {
      schedule_lag_p99 = "250ms"
      achieved_rate    = 0.8
      in_flight        = 0.5
      length           = 0.3
    }
  }
}
scenario "inherits" {}
scenario "own" {
  load {
    self_check { in_flight = 0.7 }
  }
}
`

// TestSelfCheckBlock checks the bounds reach the load config, and that a
// scenario's self_check block replaces the defaults' whole.
func TestSelfCheckBlock(t *testing.T) {
	s := mustLoad(t, selfCheckSuite, Options{})
	got := map[string]runspec.SelfCheck{}
	for _, r := range s.Plan().Runs() {
		got[r.Name] = r.Load.SelfCheck
	}
	if want := (runspec.SelfCheck{MaxScheduleLagP99: 250 * time.Millisecond, MinRateRatio: 0.8, MinInFlightRatio: 0.5, MaxLengthError: 0.3}); got["inherits"] != want {
		t.Errorf("inherits: %+v, want %+v", got["inherits"], want)
	}
	if want := (runspec.SelfCheck{MinInFlightRatio: 0.7}); got["own"] != want {
		t.Errorf("own: %+v, want %+v", got["own"], want)
	}
}

func TestSelfCheckBlockErrors(t *testing.T) {
	for _, tt := range []struct{ attr, want string }{
		{`schedule_lag_p99 = "0s"`, "must be longer than zero"},
		{`achieved_rate = 1.5`, "a fraction in (0, 1]"},
		{`in_flight = 0`, "a fraction in (0, 1]"},
		{`length = 1.5`, "length = 1.5: it is how far, as a fraction, the mean prompt and answer lengths may be"},
		{`in_flite = 0.5`, `An argument named "in_flite" is not expected`},
	} {
		src := strings.Replace(selfCheckSuite, "self_check { in_flight = 0.7 }", "self_check {\n "+tt.attr+"\n}", 1)
		if errs := strings.Join(errorsOf(t, src), "\n"); !strings.Contains(errs, tt.want) {
			t.Errorf("%s: errors %q, want %q", tt.attr, errs, tt.want)
		}
	}
}

// TestIdleTimeout checks that load's idle_timeout reaches the run's load.
func TestIdleTimeout(t *testing.T) {
	src := strings.Replace(selfCheckSuite, "self_check { in_flight = 0.7 }", "idle_timeout = \"1500ms\"", 1)
	for _, r := range mustLoad(t, src, Options{}).Plan().Runs() {
		if want := map[string]time.Duration{"inherits": 0, "own": 1500 * time.Millisecond}[r.Name]; r.Load.IdleTimeout != want {
			t.Errorf("%s: idle timeout %v, want %v", r.Name, r.Load.IdleTimeout, want)
		}
	}
	if errs := strings.Join(errorsOf(t, strings.Replace(selfCheckSuite, "self_check { in_flight = 0.7 }", "idle_timeout = \"0s\"", 1)), "\n"); !strings.Contains(errs, "must be longer than zero") {
		t.Errorf("idle_timeout = 0s: errors %q", errs)
	}
}
