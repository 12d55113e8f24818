package load

import (
	"context"
	"fmt"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// runStages sends cfg's stages one after another on the one run's client
// and record stream. Each stage paces by its own rate (and burstiness) or
// runs a closed loop of its own users, and ends at its own request count
// or duration, counted from its first send. An open-loop stage ends at its
// last send: its requests still in flight overlap the next stage, as a
// change of rate does in production. A closed-loop stage ends when its
// users' last requests end. The warmup, when asked for, comes before the
// first stage, paced as it is. Measured requests are indexed across the
// stages, so that no two share a prompt.
func (r *runner) runStages(ctx context.Context) {
	base := r.cfg.Load
	for i, st := range base.Stages {
		r.startStage(base, i+1, st)
		if pacer := NewPacer(r.cfg); pacer != nil {
			r.pacer = pacer
			r.openLoop(ctx)
		} else {
			r.closedLoop(ctx).Wait()
		}
		if ctx.Err() != nil || r.cfg.halted() {
			return
		}
	}
}

// startStage makes st the stage being sent, numbered n from 1: r.cfg's
// arrival process and end become the stage's. It holds the phase lock
// that next reads them under; the loops read them on this goroutine.
func (r *runner) startStage(base runspec.Load, n int, st runspec.Stage) {
	p := &r.ph
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stage, p.stageSent = n, 0
	r.cfg.Load = stageLoad(base, n, st)
}

// stageLoad is l with the arrival process and the end of stage n, st. A
// Gamma pacer's gaps are drawn from the seed and the stage, so that two
// stages of one rate do not repeat each other's gaps.
func stageLoad(l runspec.Load, n int, st runspec.Stage) runspec.Load {
	l.Rate, l.Burstiness, l.Concurrency = st.Rate, st.Burstiness, st.Concurrency
	l.Requests, l.Duration = st.Requests, st.Duration
	l.Ramp = runspec.Ramp{}
	l.Seed += int64(n - 1)
	return l
}

// stagesPoolSize is how many connections the stages need open before
// the clock starts: the most any one stage does.
func stagesPoolSize(cfg Config) int {
	n := 1
	for i, st := range cfg.Stages {
		n = max(n, poolSize(Config{Load: stageLoad(cfg.Load, i+1, st)}))
	}
	return n
}

// stagesConnLimit caps the stages' connections: the largest concurrency
// when every stage has one, else none.
func stagesConnLimit(cfg Config) int {
	n := 0
	for _, st := range cfg.Stages {
		if st.Concurrency == 0 {
			return 0
		}
		n = max(n, st.Concurrency)
	}
	return n
}

// validateStages reports what makes cfg's stages unusable.
func validateStages(cfg Config, bad func(string, ...any)) {
	if len(cfg.Stages) > results.MaxStages {
		bad("load: %d stages, more than %d", len(cfg.Stages), results.MaxStages)
	}
	if cfg.Rate != 0 || cfg.Concurrency != 0 || cfg.Requests != 0 || cfg.Duration != 0 || cfg.Burstiness != 0 || cfg.Ramp.Kind != "" {
		bad("load: with stages, each stage sets its rate or concurrency and its requests or duration; the load sets none")
	}
	if cfg.Workload.Kind == runspec.WorkloadTrace {
		bad("load: a trace's arrivals are its timestamps; it takes no stages")
	}
	if cfg.RampUp > 0 {
		bad("load: ramp_up staggers one closed loop's users; it takes no stages")
	}
	for i, st := range cfg.Stages {
		at := fmt.Sprintf("load: stage %d: ", i+1)
		switch {
		case st.Rate < 0 || st.Rate != st.Rate || st.Concurrency < 0 || st.Burstiness < 0:
			bad(at+"rate %g, concurrency %d and burstiness %g must not be negative", st.Rate, st.Concurrency, st.Burstiness)
		case st.Rate == 0 && st.Concurrency == 0:
			bad(at + "set concurrency (closed loop) or rate (open loop)")
		}
		if st.Requests < 0 || st.Duration < 0 {
			bad(at + "requests and duration must not be negative")
		}
		if st.Requests == 0 && st.Duration == 0 {
			bad(at + "set requests or duration, or the stage never ends")
		}
	}
}

// stageHealth judges each stage of a staged run by its own figures (its
// part's client figures against its own rate or concurrency); each
// problem and unchecked check names its stage. The whole run is judged
// only for what spans the stages: requests in flight above the largest
// cap.
func stageHealth(cfg Config, a *results.Analysis, maxInFlight int) Health {
	h := Health{Concurrency: stagesConnLimit(cfg), MaxInFlight: maxInFlight,
		AchievedRate: a.Summary.Client.AchievedRate, ScheduleLagP99: a.Summary.Client.ScheduleLagP99,
		MeanInFlight: a.Summary.Client.MeanInFlight, MeanThinking: a.Summary.Client.MeanThinking}
	for i, st := range cfg.Stages {
		name := fmt.Sprintf("stage %d: ", i+1)
		p := a.Summary.Part(results.StageRef(i + 1))
		if p == nil {
			h.Unchecked = append(h.Unchecked, name+"not checked: no measured request")
			continue
		}
		sc := cfg
		sc.Load = stageLoad(cfg.Load, i+1, st)
		sc.Stages = nil
		n := p.Summary.Requests.Completed + p.Summary.Requests.Failed
		// the most in flight at once is known for the run, not per stage:
		// the run's bound is checked below
		sh := judgeHealth(sc, p.Summary.Client, n, 0)
		for _, s := range sh.Problems {
			h.Problems = append(h.Problems, name+s)
		}
		for _, s := range sh.Unchecked {
			h.Unchecked = append(h.Unchecked, name+s)
		}
	}
	if h.Concurrency > 0 && maxInFlight > h.Concurrency {
		h.Problems = append(h.Problems, fmt.Sprintf("%d requests were in flight at once, above the largest stage concurrency %d", maxInFlight, h.Concurrency))
	}
	return h
}

// closedLoop reports whether every request of l is sent by a closed
// loop's users: no rate, and no stage with one.
func closedLoop(l runspec.Load) bool {
	if l.Rate > 0 {
		return false
	}
	for _, st := range l.Stages {
		if st.Rate > 0 {
			return false
		}
	}
	return true
}
