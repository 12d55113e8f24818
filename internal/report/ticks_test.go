package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// TestNiceTicks checks that niceTicks returns, for any finite range
// (equal values, values an ulp apart at every scale, the widest ranges
// float64 holds, subnormal numbers, bounds given the wrong way round),
// at least two finite, strictly increasing, evenly spaced ticks that cover
// it. A call that does not return fails the test by never finishing.
func TestNiceTicks(t *testing.T) {
	up := func(v float64) float64 { return math.Nextafter(v, math.Inf(1)) }
	tests := []struct{ lo, hi float64 }{
		{0, 100}, {12.5, 13.1}, {-40, 35}, {0, 0}, {100, 100}, {-3, -3},
		{100, up(100)}, {1e6, up(1e6)}, {86_400_000, up(86_400_000)}, {0.1, up(0.1)}, {1e-300, up(1e-300)},
		{-7, up(-7)}, {up(100), 100}, {1e15, up(up(up(1e15)))},
		{0, math.SmallestNonzeroFloat64}, {math.SmallestNonzeroFloat64, 2 * math.SmallestNonzeroFloat64},
		{-math.MaxFloat64, math.MaxFloat64}, {0, math.MaxFloat64}, {-math.MaxFloat64, 0},
		{math.MaxFloat64, math.MaxFloat64}, {-math.MaxFloat64, -math.MaxFloat64}, {1e308, up(1e308)},
		{-1e300, 1e300}, {1e-320, 1e300},
	}
	for _, tt := range tests {
		checkTicks(t, tt.lo, tt.hi, niceTicks(tt.lo, tt.hi))
	}
	for _, bad := range [][2]float64{{math.NaN(), 1}, {0, math.Inf(1)}, {math.Inf(-1), math.Inf(1)}} {
		if got := niceTicks(bad[0], bad[1]); len(got) != 2 || got[0] != 0 || got[1] != 1 {
			t.Errorf("niceTicks(%v, %v) = %v, want [0 1]", bad[0], bad[1], got)
		}
	}
}

// checkTicks fails t unless ticks are valid for [lo, hi].
func checkTicks(t *testing.T, lo, hi float64, ticks []float64) {
	t.Helper()
	lo, hi = min(lo, hi), max(lo, hi)
	if len(ticks) < 2 || len(ticks) > 10 {
		t.Errorf("niceTicks(%v, %v) = %v: %d ticks, want 2 to 10", lo, hi, ticks, len(ticks))
		return
	}
	for i, v := range ticks {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("niceTicks(%v, %v) = %v: tick %d is not finite", lo, hi, ticks, i)
			return
		}
		if i > 0 && !(v > ticks[i-1]) {
			t.Errorf("niceTicks(%v, %v) = %v: not strictly increasing at %d", lo, hi, ticks, i)
			return
		}
	}
	if ticks[0] > lo || ticks[len(ticks)-1] < hi {
		t.Errorf("niceTicks(%v, %v) = %v: does not cover the range", lo, hi, ticks)
	}
	// evenly spaced (in halves, which do not overflow), but where the
	// widest ranges clamp an end tick to the largest float64
	step := 0.0
	for i := 1; i < len(ticks); i++ {
		if ticks[i-1] == -math.MaxFloat64 || ticks[i] == math.MaxFloat64 {
			continue
		}
		gap := ticks[i]/2 - ticks[i-1]/2
		if step == 0 {
			step = gap
		}
		if math.Abs(gap-step) > 1e-9*step {
			t.Errorf("niceTicks(%v, %v) = %v: gap %d is %v, not %v", lo, hi, ticks, i, 2*gap, 2*step)
		}
	}
}

// TestHTMLReportOfValuesAnUlpApart renders the HTML report of a results
// file read back from disk whose TTFT samples are one ulp apart (a CDF
// whose x range is one ulp): the report is written and its TTFT chart has
// finite coordinates. niceTicks looped for ever on it.
func TestHTMLReportOfValuesAnUlpApart(t *testing.T) {
	f := comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 100, ReqPerSec: 2, N: 20, Seed: 1})
	s := f.Runs[0].Samples
	for i := range s.TTFT {
		s.TTFT[i] = 100
		if i%2 == 1 {
			s.TTFT[i] = math.Nextafter(100, 200)
		}
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := results.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	cur, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if xs := cur.Runs[0].Samples.TTFT; xs[0] == xs[1] {
		t.Fatalf("samples %v and %v read back equal; the test needs them an ulp apart", xs[0], xs[1])
	}
	var b bytes.Buffer
	if err := HTML(&b, cur, nil, compare.Compare(nil, cur, compare.DefaultConfig())); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, "chat: TTFT CDF") {
		t.Fatal("the report has no TTFT chart")
	}
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(page, bad) {
			t.Errorf("the report holds %q", bad)
		}
	}
}
