package sim

import (
	"math"
	"strings"
	"testing"
)

// TestSpecAcceptance draws the drafts of 20000 decode steps of 3 tokens at
// an acceptance rate of 0.6: the accepted fraction is 0.6 within 0.01,
// and position i is accepted alpha^(i+1) of the time, alpha solving
// alpha + alpha^2 + alpha^3 = 1.8.
func TestSpecAcceptance(t *testing.T) {
	sd := newSpecDecoder(3, 0.6)
	if got := expectedRate(3, sd.alpha); math.Abs(got-0.6) > 1e-9 {
		t.Fatalf("alpha %v gives rate %v, want 0.6", sd.alpha, got)
	}
	var pos [3]float64
	accepted, n := 0, 0
	for key := range 400 {
		r := &request{seedKey: mix64(uint64(key) + 1)}
		for out := 1; out <= 50; out++ {
			a := sd.accepted(r, out, 3)
			accepted += a
			n++
			for i := range a {
				pos[i]++
			}
		}
	}
	if rate := float64(accepted) / float64(3*n); math.Abs(rate-0.6) > 0.01 {
		t.Errorf("accepted %v of the draft tokens, want 0.6 ± 0.01", rate)
	}
	for i, c := range pos {
		if want := math.Pow(sd.alpha, float64(i+1)); math.Abs(c/float64(n)-want) > 0.015 {
			t.Errorf("position %d accepted %v of the drafts, want %v", i, c/float64(n), want)
		}
	}
	for _, rate := range []float64{0, 1} {
		if a := newSpecDecoder(4, rate).accepted(&request{seedKey: 7}, 3, 4); a != int(4*rate) {
			t.Errorf("rate %v: %d of 4 accepted", rate, a)
		}
	}
}

// TestSpecArgs reads vLLM's --speculative-config and the simulator's
// --spec-acceptance-rate, and refuses what vLLM or the knob would not take.
func TestSpecArgs(t *testing.T) {
	c, _, err := ParseArgs([]string{"--profile", "tiny", "--speculative-config", `{"method":"eagle","model":"x","num_speculative_tokens":5}`, "--spec-acceptance-rate=0.8"})
	if err != nil || c.SpecTokens != 5 || c.SpecAcceptanceRate == nil || *c.SpecAcceptanceRate != 0.8 {
		t.Fatalf("config %+v, %v: want 5 tokens at 0.8", c, err)
	}
	for args, want := range map[string]string{
		`--speculative-config {"method":"ngram"}`:                                      "no num_speculative_tokens",
		`--speculative-config {"num_speculative_tokens":0}`:                            "from 1 to 32",
		`--speculative-config nonsense`:                                                "not a JSON object",
		`--spec-acceptance-rate 0.5`:                                                   "needs a --speculative-config",
		`--num-speculative-tokens 2 --spec-acceptance-rate 1.5`:                        "must be in [0, 1]",
		`--speculative-config {"num_speculative_tokens":2} --spec-acceptance-rate NaN`: "must be in [0, 1]",
	} {
		_, _, err := ParseArgs(append([]string{"--profile", "tiny"}, strings.Fields(args)...))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", args, err, want)
		}
	}
}
