package load

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

func dueTimes(t *testing.T, p Pacer, n int) []float64 {
	t.Helper()
	s, ok := p.(scheduler)
	if !ok {
		t.Fatalf("%T has no schedule", p)
	}
	out := make([]float64, n)
	for i := range out {
		d, ok := s.due(uint64(i))
		if !ok {
			t.Fatalf("%T stopped at %d", p, i)
		}
		out[i] = d.Seconds()
	}
	return out
}

func gapStats(at []float64) (mean, cv float64) {
	n := float64(len(at) - 1)
	for i := 1; i < len(at); i++ {
		mean += at[i] - at[i-1]
	}
	mean /= n
	var ss float64
	for i := 1; i < len(at); i++ {
		d := at[i] - at[i-1] - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss/n) / mean
}

func TestConstantPace(t *testing.T) {
	p := Constant{Rate: 4}
	tests := []struct {
		name     string
		elapsed  time.Duration
		hits     uint64
		wantWait time.Duration
	}{
		// the first request goes out at once
		{name: "first", elapsed: 0, hits: 0, wantWait: 0},
		// the third request is due at 0.5 s
		{name: "early", elapsed: 100 * time.Millisecond, hits: 2, wantWait: 400 * time.Millisecond},
		// a late sender is told to go now, not to skip
		{name: "late", elapsed: 2 * time.Second, hits: 2, wantWait: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wait, stop := p.Pace(tt.elapsed, tt.hits)
			if stop || wait != tt.wantWait {
				t.Errorf("Pace(%v, %d) = %v, %v; want %v, false", tt.elapsed, tt.hits, wait, stop, tt.wantWait)
			}
		})
	}
	if _, stop := (Constant{}).Pace(0, 0); !stop {
		t.Error("a zero rate must stop")
	}
}

func TestGammaMatchesVLLMDistribution(t *testing.T) {
	const n = 40000
	tests := []struct {
		name  string
		rate  float64
		shape float64
	}{
		// shape 1: a Poisson process, CV 1
		{name: "poisson", rate: 20, shape: 1},
		// shape below 1 is burstier: CV sqrt(2)
		{name: "bursty", rate: 5, shape: 0.5},
		// shape above 1 is more even: CV 0.5
		{name: "even", rate: 100, shape: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mean, cv := gapStats(dueTimes(t, NewGamma(tt.rate, tt.shape, 7), n))
			if want := 1 / tt.rate; math.Abs(mean-want)/want > 0.03 {
				t.Errorf("mean gap %.5f s, want %.5f (1/rate)", mean, want)
			}
			if want := 1 / math.Sqrt(tt.shape); math.Abs(cv-want)/want > 0.05 {
				t.Errorf("gap CV %.3f, want %.3f (1/sqrt(shape))", cv, want)
			}
		})
	}
}

func TestGammaDeterministicUnderSeed(t *testing.T) {
	a := dueTimes(t, NewGamma(10, 0.7, 42), 500)
	b := dueTimes(t, NewGamma(10, 0.7, 42), 500)
	c := dueTimes(t, NewGamma(10, 0.7, 43), 500)
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different schedule at %d: %v vs %v", i, a[i], b[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("different seeds gave the same schedule")
	}
	if a[0] != 0 {
		t.Errorf("first request due at %v, want 0", a[0])
	}
}

func TestNewPoissonIsShapeOne(t *testing.T) {
	p := NewPoisson(3, 1)
	if p.Shape != 1 || p.Rate != 3 {
		t.Errorf("NewPoisson = %+v", p)
	}
}

func TestRampsReachTheirRates(t *testing.T) {
	over := 10 * time.Second
	tests := []struct {
		name     string
		p        Pacer
		atOver   float64 // requests due by the end of the ramp
		endRate  float64
		midCount float64 // requests due by half the ramp
	}{
		// linear 2→10 over 10 s: 60 requests by the end, 2·5+0.4·5² = 20 by half time
		{name: "linear", p: RampPacer{From: 2, To: 10, Over: over, Shape: runspec.RampLinear}, atOver: 60, endRate: 10, midCount: 20},
		// exponential 1→16 over 10 s: k = ln16/10, ∫ = (16-1)/k
		{name: "exponential", p: RampPacer{From: 1, To: 16, Over: over, Shape: runspec.RampExponential}, atOver: 15 / (math.Log(16) / 10), endRate: 16,
			midCount: (4 - 1) / (math.Log(16) / 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := dueTimes(t, tt.p, 400)
			count := func(by float64) int {
				c := 0
				for _, x := range at {
					if x <= by+1e-9 {
						c++
					}
				}
				return c - 1 // request 0 is due at 0
			}
			if got := float64(count(over.Seconds())); math.Abs(got-math.Floor(tt.atOver)) > 1 {
				t.Errorf("%v requests due by the end of the ramp, want %.1f", got, tt.atOver)
			}
			if got := float64(count(over.Seconds() / 2)); math.Abs(got-math.Floor(tt.midCount)) > 1 {
				t.Errorf("%v requests due by half time, want %.1f", got, tt.midCount)
			}
			// after the ramp, gaps are 1/To
			if gap := at[399] - at[398]; math.Abs(gap-1/tt.endRate) > 1e-6 {
				t.Errorf("gap after the ramp %.6f, want %.6f", gap, 1/tt.endRate)
			}
			for i := 1; i < len(at); i++ {
				if at[i] < at[i-1] {
					t.Fatalf("schedule goes back at %d", i)
				}
			}
		})
	}
}

func TestNewPacer(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		// no rate: a closed loop has no pacer
		{name: "closed", cfg: Config{Load: runspec.Load{Concurrency: 4}}, want: "<nil>"},
		// burstiness 0 means constant gaps
		{name: "constant", cfg: Config{Load: runspec.Load{Rate: 5}}, want: "load.Constant"},
		// burstiness set: gamma
		{name: "gamma", cfg: Config{Load: runspec.Load{Rate: 5, Burstiness: 0.5}}, want: "load.Gamma"},
		// a ramp wins
		{name: "ramp", cfg: Config{Load: runspec.Load{Rate: 5, Ramp: runspec.Ramp{Kind: runspec.RampLinear, From: 1, Over: time.Second}}}, want: "load.RampPacer"},
		{name: "exp", cfg: Config{Load: runspec.Load{Rate: 5, Ramp: runspec.Ramp{Kind: runspec.RampExponential, From: 1, Over: time.Second}}}, want: "load.RampPacer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPacer(tt.cfg)
			got := "<nil>"
			if p != nil {
				got = typeName(p)
			}
			if got != tt.want {
				t.Errorf("NewPacer = %s, want %s", got, tt.want)
			}
		})
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
