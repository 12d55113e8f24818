package compare

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

func spec(name string, ttft float64, seed uint64) comparetest.RunSpec {
	return comparetest.RunSpec{Name: name, TTFT: ttft, TPOT: 10, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 5, CV: 0.1, N: 400, Seed: seed}
}

func TestCompareVerdicts(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	env := results.Environment{Model: "m"}
	tests := []struct {
		name      string
		base, cur comparetest.RunSpec
		want      Verdict
		rerun     bool
	}{
		// Identical distributions, different draws: nothing to report.
		{name: "same", base: spec("r", 100, 1), cur: spec("r", 100, 2), want: Unchanged},
		// 50% slower is past twice the band and significant: a regression from one run.
		{name: "clear regression", base: spec("r", 100, 1), cur: spec("r", 150, 2), want: Regression},
		// 12% slower is past the band but within drift's reach: confirm with a rerun.
		{name: "near band", base: spec("r", 100, 1), cur: spec("r", 112, 2), want: Inconclusive, rerun: true},
		// 30% faster and significant is an improvement.
		{name: "improvement", base: spec("r", 100, 1), cur: spec("r", 70, 2), want: Improvement},
		// An invalid current run is not judged.
		{name: "invalid", base: spec("r", 100, 1), cur: func() comparetest.RunSpec { s := spec("r", 300, 2); s.Status = results.StatusInvalid; return s }(), want: Invalid},
		// Without samples the band alone decides, so 50% slower is still caught.
		{name: "no samples", base: func() comparetest.RunSpec { s := spec("r", 100, 1); s.NoSamples = true; return s }(), cur: spec("r", 150, 2), want: Regression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(comparetest.File(env, tt.base), comparetest.File(env, tt.cur), cfg)
			if len(c.Rows) != 1 {
				t.Fatalf("got %d rows, want 1", len(c.Rows))
			}
			r := c.Rows[0]
			if r.Verdict != tt.want || r.Rerun != tt.rerun {
				t.Errorf("verdict %s rerun %v (change %.3f p %.3g: %s), want %s rerun %v", r.Verdict, r.Rerun, r.Change, r.P, r.Reason, tt.want, tt.rerun)
			}
		})
	}
}

func TestCompareNewMissingAndAsserts(t *testing.T) {
	base := comparetest.File(results.Environment{GPU: "H100"}, spec("kept", 100, 1), spec("gone", 100, 2))
	curSpec := spec("added", 100, 3)
	curSpec.Asserts = []results.AssertResult{{Name: "ttft", Passed: false, Condition: "ttft.p95 < 1"}}
	cur := comparetest.File(results.Environment{GPU: "A100"}, spec("kept", 100, 4), curSpec)
	c := Compare(base, cur, DefaultConfig())
	got := map[string]Verdict{}
	for _, r := range c.Rows {
		got[r.Run] = r.Verdict
	}
	if got["added"] != New || got["gone"] != Missing {
		t.Errorf("verdicts %v: want added new, gone missing", got)
	}
	if len(c.FailedAsserts) != 1 || !c.Failed() {
		t.Errorf("failed asserts %v, Failed() %v: want 1 and true", c.FailedAsserts, c.Failed())
	}
	if len(c.Warnings) == 0 {
		t.Error("no warning for a different GPU")
	}
}

func TestConfirm(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	base := comparetest.File(results.Environment{}, spec("r", 100, 1))
	cur := comparetest.File(results.Environment{}, spec("r", 112, 2))
	tests := []struct {
		name  string
		rerun comparetest.RunSpec
		want  Verdict
	}{
		// The rerun is as slow: the mean is past the band, a regression.
		{name: "confirmed", rerun: spec("r", 118, 3), want: Regression},
		// The rerun is back at baseline: the first run was drift.
		{name: "drift", rerun: spec("r", 100, 3), want: Unchanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Confirm(base, cur, comparetest.File(results.Environment{}, tt.rerun), cfg)
			r := c.Rows[0]
			if r.Verdict != tt.want || r.Confirm == nil {
				t.Errorf("verdict %s (change %.3f: %s), want %s with a confirm row", r.Verdict, r.Change, r.Reason, tt.want)
			}
		})
	}
}

// TestCompareDirectionAndAbsoluteBands checks the sign of changes for
// higher-is-better metrics and bands given in the metric's unit.
func TestCompareDirectionAndAbsoluteBands(t *testing.T) {
	tests := []struct {
		name      string
		tol       Tolerance
		base, cur comparetest.RunSpec
		want      Verdict
	}{
		// Output throughput down 30% against a 5% band: worse, a regression.
		{name: "throughput down", tol: Tolerance{Metric: "throughput.output_tokens", Relative: true, Amount: 0.05},
			base: spec("r", 100, 1), cur: withTput(spec("r", 100, 2), 700), want: Regression},
		// Output throughput up 30%: better, an improvement (no samples, so the band decides).
		{name: "throughput up", tol: Tolerance{Metric: "throughput.output_tokens", Relative: true, Amount: 0.05},
			base: spec("r", 100, 1), cur: withTput(spec("r", 100, 2), 1300), want: Improvement},
		// TTFT p95 up by about 50 ms against a +200 ms band: unchanged.
		{name: "within absolute band", tol: Tolerance{Metric: "ttft.p95", Amount: 200},
			base: spec("r", 100, 1), cur: spec("r", 150, 2), want: Unchanged},
		// TTFT p95 up by about 70 ms against a +20 ms band: past twice the band, significant.
		{name: "past absolute band", tol: Tolerance{Metric: "ttft.p95", Amount: 20},
			base: spec("r", 100, 1), cur: spec("r", 150, 2), want: Regression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Tolerances: []Tolerance{tt.tol}}
			c := Compare(comparetest.File(results.Environment{}, tt.base), comparetest.File(results.Environment{}, tt.cur), cfg)
			if len(c.Rows) != 1 {
				t.Fatalf("got %d rows, want 1", len(c.Rows))
			}
			if r := c.Rows[0]; r.Verdict != tt.want {
				t.Errorf("verdict %s (change %.3f delta %.1f: %s), want %s", r.Verdict, r.Change, r.Delta, r.Reason, tt.want)
			}
		})
	}
}

func withTput(s comparetest.RunSpec, tput float64) comparetest.RunSpec {
	s.OutTokPerSec = tput
	return s
}

// TestCompareImportedBaselineLacksP95 checks that a baseline imported from
// `vllm bench serve` without p95 (vLLM saves p99 by default) makes ttft.p95
// "new", not a regression against a value of 0.
func TestCompareImportedBaselineLacksP95(t *testing.T) {
	fh, err := os.Open(filepath.Join("..", "..", "testdata", "vllmbench", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	b, err := results.ReadVLLMBench(fh)
	if err != nil {
		t.Fatal(err)
	}
	base := b.File("chat")
	cur := comparetest.File(results.Environment{}, spec("chat", 160, 1))
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.1}, {Metric: "ttft.p99", Relative: true, Amount: 0.1}}}
	c := Compare(base, cur, cfg)
	got := map[string]Verdict{}
	for _, r := range c.Rows {
		got[r.Metric.Name] = r.Verdict
	}
	if got["ttft.p95"] != New {
		t.Errorf("ttft.p95 against a baseline without it: %s, want new", got["ttft.p95"])
	}
	if v := got["ttft.p99"]; v == New || v == Missing || v == "" {
		t.Errorf("ttft.p99, which the baseline has, was not judged: %q", v)
	}
	if c.Failed() {
		t.Errorf("comparison fails the gate on a statistic the baseline lacks: %+v", c.Rows)
	}
}

// TestTailOnlyRegression checks that a quantile tolerance is judged by
// evidence about that quantile: 10% of the requests slowed ×3 leaves the
// median and the Mann-Whitney test nearly where they were, but moves p95
// far past its band, and the row says so with the interval of the change.
func TestTailOnlyRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	b := comparetest.Lognormal(rng, 400, 100, 0.25)
	c := comparetest.Lognormal(rng, 400, 100, 0.25)
	for i := range c {
		if i%10 == 0 {
			c[i] *= 3
		}
	}
	slices.Sort(b)
	slices.Sort(c)
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "ttft.median", Relative: true, Amount: 0.10}}}
	cmp := Compare(fileOf(b), fileOf(c), cfg)
	p95, median := cmp.Rows[0], cmp.Rows[1]
	if p95.Verdict != Regression || p95.Test != QuantileDifference || !(p95.ChangeLo > 0.10) {
		t.Errorf("p95: %s (%s) by %s, change %+.2f in [%+.2f, %+.2f]; want a regression by the quantile difference with the interval past the band",
			p95.Verdict, p95.Reason, p95.Test, p95.Change, p95.ChangeLo, p95.ChangeHi)
	}
	if mw := mannWhitneyP(b, c); mw < DefaultAlpha/10 {
		t.Logf("Mann-Whitney p = %.3g: the fixture's tail moved the body more than intended", mw)
	}
	if median.Verdict == Regression {
		t.Errorf("median: %s by %s, change %+.2f; a tail-only change must not regress the median", median.Verdict, median.Test, median.Change)
	}
	if p95.Baseline >= p95.Current || p95.Estimator != HarrellDavisEstimator {
		t.Errorf("p95 row shows %v → %v by %s; want the Harrell-Davis estimates the verdict used", p95.Baseline, p95.Current, p95.Estimator)
	}
}

// TestNotMeasuredRowsStay checks that a tolerance on a metric neither run
// could measure keeps its row, as "not measured" with the reason, that the
// gate is not failed by it, and that a metric not of the runs at all (a
// turn metric without conversations) has no row.
func TestNotMeasuredRowsStay(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{
		{Metric: "itl.p99", Relative: true, Amount: 0.10},
		{Metric: "server.kv_cache_usage.max", Amount: 0.05},
		{Metric: "first_turn.ttft.p95", Relative: true, Amount: 0.10},
	}}
	oneChunk := func(seed uint64) *results.File {
		f := comparetest.File(results.Environment{Model: "m"}, spec("r", 100, seed))
		f.Runs[0].Summary.ITL = results.Stats{} // every answer in one chunk
		f.Runs[0].Summary.Server = nil          // no /metrics
		return f
	}
	c := Compare(oneChunk(1), oneChunk(2), cfg)
	got := map[string]Row{}
	for _, r := range c.Rows {
		got[r.Metric.Name] = r
	}
	if len(got) != 2 {
		t.Fatalf("rows %v, want itl.p99 and server.kv_cache_usage.max", got)
	}
	for name, want := range map[string]string{"itl.p99": "one chunk", "server.kv_cache_usage.max": "/metrics"} {
		r := got[name]
		if r.Verdict != NotMeasured || !strings.Contains(r.Reason.Raw(), "neither run measured it") || !strings.Contains(r.Reason.Raw(), want) {
			t.Errorf("%s: %s %q, want not measured, saying %q", name, r.Verdict, r.Reason, want)
		}
	}
	if d := c.Decide(); d != DecisionPass {
		t.Errorf("decision %s: a metric neither side measured is said, not failed", d)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"verdict":"not measured","reason":"neither run measured it: every completed answer came in one chunk`) {
		t.Errorf("JSON lacks the not-measured itl row:\n%s", b)
	}
}
