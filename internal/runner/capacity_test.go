package runner

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/results"
)

// TestCapacitySearchAgainstSweep runs the capacity search twice and a
// brute-force sweep over the same loads once, on the tiny simulator in
// real time (an accuracy test: the full run's), and holds the search to
// the targets: its answer near the sweep's, about half the
// sweep's requests, and near its own on the second run. Every probe is in
// the results with its summary.
//
// The simulator caps the batch at 24 sequences: up to 24 users TTFT p95
// is a prefill and a few steps (about 41 ms at 24), past it requests wait
// for a slot (about 150 ms at 28), so the SLO of 100 ms breaks past 24 by
// the model's structure. A busy machine (other packages' tests on the
// same cores) only makes TTFT longer, so it can fail a probe below the
// cap but never pass one above it: no answer may pass 24 + one step, on
// any attempt. Below it the target is one step (4 users) or 10%; the test
// allows two. A busy moment shows as TPOT: no decode step at up to 24
// sequences takes over 2.8 ms in the model (one with a 64-token prefill),
// so a run at or under the cap whose TPOT p95 passes 1.25 times that ran
// late. An attempt that disagrees is made once more on fresh runs; a
// disagreement on an attempt that ran on time fails, and two late
// attempts in a row skip the comparison (as TestCapacityRateSearch does).
func TestCapacitySearchAgainstSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 3000 requests on the simulator in real time")
	}
	if raceEnabled {
		// Under -race the simulator's TTFT moves by more than the SLO's
		// margin between the sweep and the searches: their answers would
		// be compared on different servers. The search's logic is raced in
		// package capacity; its runner path in TestCapacityRunsUnderRace.
		t.Skip("timing comparison; see TestCapacityRunsUnderRace")
	}
	s := loadSuite(t, "capacity.hcl", nil)
	const step, maxNumSeqs, lateTPOTms = 4.0, 24.0, 1.25 * 2.8
	var late []string // runs at or under the cap that ran late, this attempt
	noteLate := func(what string, load, tpotP95 float64) {
		if load <= maxNumSeqs && tpotP95 > lateTPOTms {
			late = append(late, fmt.Sprintf("%s at %v users: TPOT p95 %.2f ms", what, load, tpotP95))
		}
	}
	search := func() *results.Run {
		plan, err := s.Plan().Filter([]string{"search"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Run(context.Background(), s, Options{Plan: plan})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		r := &f.Runs[0]
		c := r.Capacity
		if r.Status != results.StatusOK || c == nil || len(c.Probes) == 0 {
			t.Fatalf("search run %s: %s %s, capacity %+v", r.Name, r.Status, r.Error, c)
		}
		sum, early := 0, 0
		for _, p := range c.Probes {
			sum += p.Requests
			if p.Summary.Requests.Completed == 0 || p.Requests > 200 {
				t.Errorf("probe at %v: %d requests, summary %+v", p.Load, p.Requests, p.Summary.Requests)
			}
			if p.Stopped != "" && p.Requests < 200 {
				early++
			}
			noteLate("probe", p.Load, p.Summary.TPOT.P95)
		}
		if early == 0 {
			t.Error("no probe stopped before its 200 requests")
		}
		if sum != c.Requests {
			t.Errorf("capacity counts %d requests, its probes %d", c.Requests, sum)
		}
		if v, ok := mustMetric(t, "capacity.concurrency").Value(&r.Summary); !ok || v != c.Answer {
			t.Errorf("capacity.concurrency = %v (%v), want the answer %v", v, ok, c.Answer)
		}
		t.Logf("search: %s\n%s", report.CapacityLine(c), report.ProbeTable(c))
		return r
	}
	sweep := func() (answer float64, requests, runs int) {
		plan, err := s.Plan().Filter([]string{"sweep"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Run(context.Background(), s, Options{Plan: plan})
		if err != nil {
			t.Fatalf("sweep: %v", err)
		}
		for _, r := range f.Runs {
			requests += r.Summary.Requests.Completed + r.Summary.Requests.Failed
			c, _ := strconv.ParseFloat(r.Params["concurrency"], 64)
			if len(r.Asserts) == 1 && r.Asserts[0].Passed && c > answer {
				answer = c
			}
			noteLate("sweep point", c, r.Summary.TPOT.P95)
			t.Logf("sweep %s: ttft.p95 %.1f ms, tpot.p95 %.2f ms", r.Name, r.Summary.TTFT.P95, r.Summary.TPOT.P95)
		}
		return answer, requests, len(f.Runs)
	}
	within := func(a, b float64) bool { return math.Abs(a-b) <= 2*max(step, 0.1*b) }
	// compare runs the searches and the sweep and returns how the search
	// disagreed with the sweep or itself; what no disturbance explains
	// fails the test at once.
	compare := func() (disagreements []string) {
		first := search()
		bfAnswer, bfRequests, bfRuns := sweep()
		second := search()
		a1, a2 := first.Capacity.Answer, second.Capacity.Answer
		t.Logf("brute force: answer %v, %d requests in %d runs; search: %v then %v, %d and %d probes, %d and %d requests",
			bfAnswer, bfRequests, bfRuns, a1, a2, len(first.Capacity.Probes), len(second.Capacity.Probes),
			first.Capacity.Requests, second.Capacity.Requests)
		if a1 == 0 || a2 == 0 || bfAnswer == 0 {
			t.Fatalf("no answer: sweep %v, searches %v and %v", bfAnswer, a1, a2)
		}
		for _, a := range []float64{a1, a2, bfAnswer} {
			if a > maxNumSeqs+step {
				t.Errorf("an answer of %v users passes the batch cap %v by more than one step: no busy machine explains that", a, maxNumSeqs)
			}
		}
		if !within(a1, bfAnswer) {
			disagreements = append(disagreements, fmt.Sprintf("search answered %v, the sweep %v: more than two steps apart", a1, bfAnswer))
		}
		if !within(a2, a1) {
			disagreements = append(disagreements, fmt.Sprintf("search answered %v then %v: more than two steps apart", a1, a2))
		}
		// The target is half the sweep's requests (measured: 40-48%); the
		// test allows 55% so a slow machine's noisier probes do not fail it.
		for _, r := range []*results.Run{first, second} {
			if float64(r.Capacity.Requests) > 0.55*float64(bfRequests) {
				disagreements = append(disagreements, fmt.Sprintf("search used %d requests, more than 55%% of the sweep's %d", r.Capacity.Requests, bfRequests))
			}
		}
		return disagreements
	}
	for attempt := 1; attempt <= 2; attempt++ {
		late = nil
		d := compare()
		switch {
		case len(d) == 0:
			return
		case len(late) == 0:
			for _, msg := range d {
				t.Errorf("attempt %d, on time: %s", attempt, msg)
			}
			return
		}
		t.Logf("attempt %d disagreed (%s), but the simulator ran late (%s)", attempt, strings.Join(d, "; "), strings.Join(late, "; "))
	}
	t.Skip("the simulator ran late on both attempts, and their answers disagreed: see the log")
}

func mustMetric(t *testing.T, name string) results.Metric {
	t.Helper()
	m, ok := results.LookupMetric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return m
}

// TestCapacityRunsUnderRace runs one capacity search end to end (the probe
// watcher, the halt, the progress tee) with loose expectations, so that
// -race sees the runner's capacity path: it must finish with an answer in
// range and every probe recorded.
func TestCapacityRunsUnderRace(t *testing.T) {
	// (the 100 s SLO holds at any speed: the simulator runs ten times faster)
	s := loadSuite(t, "capacity.hcl", map[string]string{"slo_ms": "100000", "time_scale": "0.1"})
	plan, err := s.Plan().Filter([]string{"search"})
	if err != nil {
		t.Fatal(err)
	}
	plan.Groups[0].Runs[0].Load.Requests = 20
	f, err := Run(context.Background(), s, Options{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	c := f.Runs[0].Capacity
	// Every load meets a 100 s SLO: the answer is max, confirmed by repeats.
	if c == nil || c.Answer != 48 || c.FailedAt != 0 || len(c.Probes) < 5 {
		t.Fatalf("capacity = %+v", c)
	}
	// The file says what var.slo_ms was, in the unit of the metric it bounds.
	if c.Values["var.slo_ms"] != 100000 || c.Units["var.slo_ms"] != results.Milliseconds {
		t.Errorf("capacity SLO values %v, units %v: want var.slo_ms = 100000 ms", c.Values, c.Units)
	}
}

// TestCapacityRateSearch runs a search over the arrival rate on the tiny
// simulator capped at 4 sequences (testdata/capacity_rate.hcl), whose
// capacity is structural: a request holds one of 4 slots for 64 engine
// steps of 3.32 ms (its prefill with the first token, then 63 decodes), so
// the server completes at most 4 / (64 × 3.32 ms) = 18.8 requests a
// second; past that an open loop's queue grows through the probe and TTFT
// p95 passes the SLO. Every probe must be in the results file with its
// summary, and no probe a quarter past the service rate may meet the SLO.
//
// The answer must be within one step or 10% of the service rate. Near it
// a queue is slow to drain, so a busy machine that runs the simulator late
// for a moment (a probe's TPOT p95 well above the step) fails a probe that
// would have passed: such a search errs low and proves nothing about the
// model. It is logged and run once more; only its upper bound is held
// (disturbances never make an overloaded probe pass). Two disturbed
// searches in a row skip the comparison.
func TestCapacityRateSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 400 requests on the simulator")
	}
	const (
		slots, steps, stepMs = 4, 64, 3.32
		resolution, planned  = 1.0, 60
	)
	capacity := slots / (steps * stepMs / 1000)
	tolerance := max(resolution, 0.1*capacity)
	for attempt := 1; attempt <= 2; attempt++ {
		c := rateSearch(t, planned)
		var late []string
		for _, p := range c.Probes {
			if p.Summary.TPOT.P95 > 1.25*stepMs {
				late = append(late, fmt.Sprintf("%v req/s: TPOT p95 %.2f ms", p.Load, p.Summary.TPOT.P95))
			}
			if p.Load >= 1.25*capacity && p.Passed {
				t.Errorf("probe at %v req/s, a quarter past the service rate %.1f, met the SLO (TTFT p95 %.1f ms)", p.Load, capacity, p.Summary.TTFT.P95)
			}
		}
		if c.Answer > capacity+tolerance {
			t.Errorf("search answered %.1f req/s, above the service rate %.1f by more than one step or 10%%", c.Answer, capacity)
		}
		if len(late) > 0 {
			t.Logf("attempt %d: the simulator ran late (%s): the answer %v is not compared with the model", attempt, strings.Join(late, "; "), c.Answer)
			continue
		}
		if c.Answer == 0 || c.FailedAt <= c.Answer {
			t.Fatalf("capacity = %v, fails at %v; want a bracket", c.Answer, c.FailedAt)
		}
		if d := math.Abs(c.Answer - capacity); d > tolerance {
			t.Errorf("search answered %.1f req/s, the service rate is %.1f: %.1f apart, more than one step or 10%%", c.Answer, capacity, d)
		}
		return
	}
	t.Skip("the machine ran the simulator late in both searches: see the log")
}

// rateSearch runs the search of testdata/capacity_rate.hcl and checks
// what holds however busy the machine: every probe in the results file,
// in the order run, with its summary; some stopped early, some met, some
// missed; the answer is the metric capacity.rate.
func rateSearch(t *testing.T, planned int) *results.Capacity {
	t.Helper()
	s := loadSuite(t, "capacity_rate.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	f, err := Run(context.Background(), s, Options{OutputPath: out})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := &f.Runs[0]
	c := r.Capacity
	if r.Status != results.StatusOK || c == nil || c.Vary != results.VaryRate {
		t.Fatalf("search %s %s, capacity %+v", r.Status, r.Error, c)
	}
	t.Logf("%s\n%s", report.CapacityLine(c), report.ProbeTable(c))
	if v, ok := mustMetric(t, "capacity.rate").Value(&r.Summary); !ok || v != c.Answer {
		t.Errorf("capacity.rate = %v (%v), want the answer %v", v, ok, c.Answer)
	}
	read, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rc := read.Runs[0].Capacity
	if rc == nil || len(rc.Probes) != len(c.Probes) || len(c.Probes) < 2 {
		t.Fatalf("results file keeps %v probes of %d", rc, len(c.Probes))
	}
	if c.Probes[0].Load != 12 || c.Probes[1].Load != 24 && c.Probes[1].Load != 12 {
		t.Errorf("first probes at %v and %v req/s, want min 12, then 24 (or 12 again)", c.Probes[0].Load, c.Probes[1].Load)
	}
	sum, early, met, missed := 0, 0, 0, 0
	for i, p := range rc.Probes {
		sum += p.Requests
		if p.Load != c.Probes[i].Load || p.Passed != c.Probes[i].Passed || p.Requests != c.Probes[i].Requests {
			t.Errorf("probe %d read back as %+v, written as %+v", i+1, p, c.Probes[i])
		}
		if p.Status != results.StatusOK || p.Summary.Requests.Completed == 0 || p.Requests != p.Summary.Requests.Completed+p.Summary.Requests.Failed {
			t.Errorf("probe %d at %v req/s: %s, %d requests, summary %+v", i+1, p.Load, p.Status, p.Requests, p.Summary.Requests)
		}
		if p.Requests < planned {
			early++
		}
		if p.Passed {
			met++
		} else {
			missed++
		}
	}
	if sum != rc.Requests {
		t.Errorf("capacity counts %d requests, its probes %d", rc.Requests, sum)
	}
	if c.Answer > 0 && (early == 0 || met == 0 || missed == 0) {
		t.Errorf("%d probes stopped early, %d met, %d missed; want some of each", early, met, missed)
	}
	return c
}

// TestCapacityProbeSendsNothing gives a rate search a load the load
// generator refuses (ramp_up in an open loop, which the suite refuses but a
// plan built another way could hold): the search must fail with the
// reason, not answer "below min" as if the server had missed its SLO.
func TestCapacityProbeSendsNothing(t *testing.T) {
	s := loadSuite(t, "capacity_rate.hcl", nil)
	plan := s.Plan()
	plan.Groups[0].Runs[0].Load.RampUp = time.Second
	f, err := Run(context.Background(), s, Options{Plan: plan})
	if err == nil || !strings.Contains(err.Error(), "ramp_up") {
		t.Errorf("Run error = %v, want the load generator's refusal", err)
	}
	r := f.Runs[0]
	if r.Status != results.StatusFailed || !strings.Contains(r.Error.Raw(), "the probe at rate = 12 sent no request: load: ramp_up") {
		t.Errorf("run %s: %q, want failed with the probe's reason", r.Status, r.Error)
	}
	if c := r.Capacity; c == nil || len(c.Probes) != 1 || c.Answer != 0 || r.Summary.Capacity != nil {
		t.Errorf("capacity = %+v, summary capacity %v; want the one probe kept and no answer", c, r.Summary.Capacity)
	}
}

// TestCapacityRateProbeByDuration runs a rate search whose probes are
// bounded by a duration, not a request count, at loads well past the
// simulator's service rate (about 19 req/s): each probe must still be
// stopped early once it cannot meet the SLO, since its rate and duration
// say how many requests it plans.
func TestCapacityRateProbeByDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs about 100 requests on the simulator")
	}
	s := loadSuite(t, "capacity_rate.hcl", nil)
	plan := s.Plan()
	sr := plan.Groups[0].Runs[0]
	sr.Load.Requests, sr.Load.Duration = 0, 3*time.Second
	c := *sr.Capacity
	c.Min, c.Max = 24, 48 // 28% past the service rate and more
	sr.Capacity = &c
	f, err := Run(context.Background(), s, Options{Plan: plan})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	rc := f.Runs[0].Capacity
	if rc == nil {
		t.Fatalf("run %s %s has no capacity", f.Runs[0].Status, f.Runs[0].Error)
	}
	t.Logf("%s\n%s", report.CapacityLine(rc), report.ProbeTable(rc))
	const planned = 24 * 3
	if rc.Answer != 0 || len(rc.Probes) != 2 {
		t.Errorf("answer %v after %d probes, want below min after two", rc.Answer, len(rc.Probes))
	}
	for i, p := range rc.Probes {
		if p.Stopped != results.ProbeCannotMeet || p.Requests >= planned {
			t.Errorf("probe %d at %v req/s: stopped %q after %d requests; want cannot meet before the %d of 3 s", i+1, p.Load, p.Stopped, p.Requests, planned)
		}
	}
}

func TestPlannedRequests(t *testing.T) {
	for _, tc := range []struct {
		requests int
		rate     float64
		duration time.Duration
		want     int
	}{
		{200, 0, 0, 200},                 // a count
		{0, 0, time.Minute, 0},           // a closed loop for a time: unknown
		{200, 0, time.Minute, 200},       // a closed loop: the count
		{0, 24, 3 * time.Second, 72},     // an open loop for a time
		{50, 24, 3 * time.Second, 50},    // the count comes first
		{500, 24, 3 * time.Second, 72},   // the time comes first
		{60, 12.5, 10 * time.Second, 60}, // 125 by time
	} {
		if got := plannedRequests(tc.requests, tc.rate, tc.duration); got != tc.want {
			t.Errorf("plannedRequests(%d, %v, %v) = %d, want %d", tc.requests, tc.rate, tc.duration, got, tc.want)
		}
	}
}
