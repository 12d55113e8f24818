package runner

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/capacity"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// maxInvalidProbes is how many invalid probes at one load count as a miss.
const maxInvalidProbes = 3

// searchCapacity carries out a capacity search: one probe after another on
// the same server, at the loads capacity.Search asks for, each stopped
// early once its outcome is decided. The returned run holds every probe;
// its summary is the answer's probe's, with the answer as
// capacity.concurrency or capacity.rate.
func (r *runner) searchCapacity(ctx context.Context, inst backend.Instance, apiKey string, sr *plan.Run, ref string) (run results.Run, fatal bool, err error) {
	c := sr.Capacity
	run = newRun(sr, ref)
	rec := &results.Capacity{Vary: c.Vary, Min: c.Min, Max: c.Max, SLO: c.SLO.Source, Probes: []results.Probe{}}
	rec.Values, rec.Units = sr.SLOValues()
	run.Capacity = rec
	search := &capacity.Search{Min: c.Min, Max: c.Max, Step: c.Step, Integer: c.Vary == results.VaryConcurrency, Repeats: c.Repeats}
	run.Started = r.now().UTC()
	var best *results.Summary
	invalid := map[float64]int{}
	for {
		load, done := search.Next()
		if done {
			break
		}
		probe, pfatal, perr := r.probe(ctx, inst, apiKey, sr, load, ref)
		rec.Probes = append(rec.Probes, probe)
		rec.Requests += probe.Requests
		if pfatal {
			run.Status, run.Error = results.StatusPartial, untrusted.String(perr.Error())
			run.Finished = r.now().UTC()
			return run, true, perr
		}
		// A probe that sent nothing (the load generator refused its
		// configuration) says nothing about the server: counted as a miss,
		// it would end the search with a false "below min".
		if probe.Status == results.StatusFailed && probe.Requests == 0 {
			run.Status = results.StatusFailed
			run.Error = untrusted.String(fmt.Sprintf("the probe at %s = %s sent no request: %s", c.Vary, strconv.FormatFloat(load, 'g', -1, 64), probe.Message.Raw()))
			run.Finished = r.now().UTC()
			return run, false, fmt.Errorf("run %s: %s", sr.Name, run.Error)
		}
		// An invalid probe (the load generator failed its own checks) says
		// nothing about the server: the load is probed again, and only
		// counts as a miss after maxInvalidProbes such probes.
		if probe.Status == results.StatusInvalid {
			if invalid[load]++; invalid[load] < maxInvalidProbes {
				continue
			}
		}
		search.Record(load, probe.Passed, probe.Stopped != "")
	}
	run.Finished = r.now().UTC()
	rec.Answer, rec.FailedAt = search.Bracket()
	rec.Noisy = search.Noisy()
	// The run's numbers are those of the last probe at the answer.
	for i := len(rec.Probes) - 1; i >= 0; i-- {
		if p := &rec.Probes[i]; p.Load == rec.Answer && p.Passed {
			best = &p.Summary
			break
		}
	}
	if best != nil {
		run.Summary = *best
	}
	run.Summary.Capacity = &results.CapacityAnswer{Vary: c.Vary, Value: rec.Answer}
	run.Status = results.StatusOK
	run.Asserts = sr.EvalAsserts(&run.Summary)
	return run, false, nil
}

// probe runs sr at one load of its capacity search, stopping it early when
// capacity.Decide says its SLO is decided.
func (r *runner) probe(ctx context.Context, inst backend.Instance, apiKey string, sr *plan.Run, load float64, ref string) (p results.Probe, fatal bool, err error) {
	pr := sr.ProbeRun(load)
	halt := make(chan struct{})
	planned := plannedRequests(pr.Load.Requests, pr.Load.Rate, pr.Load.Duration)
	// The first wave of a closed loop starts at once and is slower than
	// what follows; an open loop's first tenth settles its queue.
	burnIn := pr.Load.Concurrency
	if pr.Load.Rate > 0 {
		burnIn = planned / 10
	}
	w := &probeWatch{
		Progress: r.progress,
		planned:  planned,
		burnIn:   burnIn,
		opts: results.SummarizeOptions{
			GoodputTTFT: sr.Goodput.TTFT, GoodputTPOT: sr.Goodput.TPOT, GoodputE2EL: sr.Goodput.E2EL,
		},
		slo:  func(s *results.Summary) bool { return sr.EvalSLO(s).Passed },
		halt: halt,
	}
	saved := r.progress
	r.progress = w
	run, fatal, err := r.executeUntil(ctx, inst, apiKey, pr, ref, halt)
	r.progress = saved

	p = results.Probe{Load: load, Status: run.Status, Summary: run.Summary, Stopped: w.stopped,
		Requests: run.Summary.Requests.Completed + run.Summary.Requests.Failed}
	switch {
	case run.Status != results.StatusOK:
		p.Message = run.Error
		if run.Status == results.StatusInvalid && len(run.InvalidReasons) > 0 {
			p.Message = untrusted.String("invalid: " + run.InvalidReasons[0])
		}
	case w.stopped == results.ProbeMetWithConfidence:
		p.Passed = true
	case w.stopped == results.ProbeCannotMeet:
		p.Message = "the SLO could no longer be met"
	default:
		slo := sr.EvalSLO(&run.Summary)
		p.Passed, p.Message = slo.Passed, slo.Message
	}
	if fatal {
		return p, true, err
	}
	return p, false, nil
}

// plannedRequests is how many measured requests a probe sends unless
// stopped: its request count or, in an open loop with a duration, what its
// rate sends in that time, whichever is fewer. 0 when unknown (a closed
// loop with a duration only): such a probe is never stopped early.
func plannedRequests(requests int, rate float64, duration time.Duration) int {
	if rate <= 0 || duration <= 0 {
		return requests
	}
	byTime := int(rate * duration.Seconds())
	if requests > 0 && requests < byTime {
		return requests
	}
	return byTime
}

// probeWatch passes every event on and watches a probe's finished requests,
// closing halt once capacity.Decide has decided the probe.
type probeWatch struct {
	event.Progress
	planned int
	burnIn  int
	opts    results.SummarizeOptions
	slo     func(*results.Summary) bool
	halt    chan struct{}

	mu      sync.Mutex
	recs    []results.Record
	next    int // measured count at which to look next
	stopped results.ProbeStop
}

func (w *probeWatch) Report(e event.Event) {
	w.Progress.Report(e)
	rd, ok := e.(event.RequestDone)
	if !ok || rd.Record.Warmup || w.planned <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped != "" {
		return
	}
	w.recs = append(w.recs, rd.Record)
	// Look about twenty times over the probe.
	every := max(w.planned/20, 1)
	if len(w.recs) < w.next {
		return
	}
	w.next = len(w.recs) + every
	d := capacity.Decide(w.recs, w.planned, w.burnIn, w.opts, w.slo)
	if d.Stopped != "" {
		w.stopped = d.Stopped
		close(w.halt)
	}
}
