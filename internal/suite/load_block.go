package suite

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// Values above these are accepted with a warning: they are almost
// certainly typos (an extra zero, 1e8 for 1e3).
const (
	AbsurdConcurrency = 10000
	AbsurdRate        = 100000
	AbsurdRequests    = 10000000
	AbsurdTokens      = 1 << 20
)

// MaxIdleTimeout is the idle_timeout from which on a suite is warned: vLLM's
// HTTP server closes connections idle for 5 s (VLLM_HTTP_TIMEOUT_KEEP_ALIVE)
// unless told otherwise, so a longer idle timeout needs a server set up for
// it.
const MaxIdleTimeout = 5 * time.Second

// loadBlock is `load {...}`: how traffic arrives and when the run stops.
type loadBlock struct {
	Concurrency *hcl.Attribute  `hcl:"concurrency,optional"`
	Rate        *hcl.Attribute  `hcl:"rate,optional"`
	Burstiness  *hcl.Attribute  `hcl:"burstiness,optional"`
	Requests    *hcl.Attribute  `hcl:"requests,optional"`
	Duration    *hcl.Attribute  `hcl:"duration,optional"`
	Warmup      *hcl.Attribute  `hcl:"warmup,optional"`
	RampUp      *hcl.Attribute  `hcl:"ramp_up,optional"`
	Seed        *hcl.Attribute  `hcl:"seed,optional"`
	Timeout     *hcl.Attribute  `hcl:"timeout,optional"`
	IdleTimeout *hcl.Attribute  `hcl:"idle_timeout,optional"`
	Ramp        *rampBlock      `hcl:"ramp,block"`
	SelfCheck   *selfCheckBlock `hcl:"self_check,block"`
	Stages      []*stageBlock   `hcl:"stage,block"`
	Body        hcl.Body        `hcl:",body"`
	DefRange    hcl.Range       `hcl:",def_range"`

	// searched is the knob a scenario's capacity block chooses
	// (results.VaryConcurrency or results.VaryRate), so neither need be set
	// here; "" without a search.
	searched results.Vary
	// traced says the scenario's workload is a trace, whose timestamps are
	// the arrivals: no rate, and concurrency only caps what is in flight.
	traced bool
}

// openLoop reports whether the runs of b send on a schedule: rate is set,
// a capacity search varies it, or a trace's timestamps are the arrivals.
func (b *loadBlock) openLoop() bool {
	return b.Rate != nil || b.searched == results.VaryRate || b.traced
}

// rampBlock is `ramp { kind = "linear"  from = 1  over = "1m" }` inside load.
type rampBlock struct {
	Kind     *hcl.Attribute `hcl:"kind,optional"`
	From     *hcl.Attribute `hcl:"from,optional"`
	Over     *hcl.Attribute `hcl:"over"`
	Body     hcl.Body       `hcl:",body"`
	DefRange hcl.Range      `hcl:",def_range"`
}

// fill evaluates the load knobs into cfg and checks that they make sense
// together. where is the range to blame for what is missing.
func (b *loadBlock) fill(ev *evaluator, cfg *runspec.Load, where hcl.Range) {
	if b == nil {
		ev.errorRange(where, "Missing load block",
			"Say how much traffic to send in a load block (here or in defaults): concurrency = 8 and requests = 200 for a closed loop, or rate = 10 and duration = \"2m\" for an open loop, each on its own line.")
		return
	}
	where = b.DefRange
	staged := len(b.Stages) > 0
	if staged {
		b.refuseWithStages(ev)
	}
	if n, ok := concurrencyOf(ev, b.Concurrency); ok {
		cfg.Concurrency = n
	}
	if b.traced {
		b.refuseWithTrace(ev)
	}
	if !b.traced {
		if r, ok := rateOf(ev, b.Rate); ok {
			cfg.Rate = r
		}
	}
	if v, ok := ev.num(b.Burstiness); ok {
		switch {
		case v <= 0:
			ev.errorAt(b.Burstiness, "Invalid burstiness", "burstiness = %s: it is the gamma shape of the gaps between arrivals and must be above zero (1 is Poisson, below 1 burstier).", plan.FormatNumber(v))
		case b.traced:
		case !b.openLoop():
			ev.errorAt(b.Burstiness, "Burstiness without a rate", "burstiness shapes an open-loop arrival process; set rate (requests per second) as well.")
		default:
			cfg.Burstiness = v
		}
	}
	reqOK := false
	if n, ok := ev.int(b.Requests); ok {
		if n < 1 {
			ev.errorAt(b.Requests, "Invalid request count", "requests = %d: a run needs at least 1 measured request.", n)
		} else {
			cfg.Requests, reqOK = n, true
			if n > AbsurdRequests {
				ev.warnAt(b.Requests, "Absurd request count", "requests = %d: at a thousand requests a second this run would take %s; did you mean a smaller number?", n, time.Duration(n/1000)*time.Second)
			}
		}
	}
	if d, ok := ev.duration(b.Duration); ok {
		cfg.Duration = d
	}
	if n, ok := ev.int(b.Warmup); ok {
		switch {
		case n < 0:
			ev.errorAt(b.Warmup, "Invalid warmup", "warmup = %d: it is a number of requests and can't be negative.", n)
		case reqOK && n > cfg.Requests:
			ev.errorAt(b.Warmup, "Warmup larger than the run", "warmup = %d is more than requests = %d; warmup requests are sent first and not measured, so keep them to a fraction of the run.", n, cfg.Requests)
		default:
			cfg.Warmup = n
		}
	}
	if d, ok := ev.duration(b.RampUp); ok {
		switch {
		case b.openLoop():
			ev.errorAt(b.RampUp, "ramp_up in an open loop", "ramp_up staggers the start of a closed loop's users; an open loop (rate) starts at its arrival rate, or ramps it with a ramp block.")
		case cfg.Duration > 0 && d >= cfg.Duration:
			ev.errorAt(b.RampUp, "ramp_up longer than the run", "ramp_up = %s is not shorter than duration = %s: the users would still be starting when the run ends.", d, cfg.Duration)
		default:
			cfg.RampUp = d
		}
	}
	if n, ok := ev.int(b.Seed); ok {
		cfg.Seed = int64(n)
	}
	if d, ok := ev.duration(b.Timeout); ok {
		cfg.Timeout = d
	}
	if d, ok := ev.duration(b.IdleTimeout); ok { // positive: duration checks that
		cfg.IdleTimeout = d
		if d >= MaxIdleTimeout {
			ev.warnAt(b.IdleTimeout, "Long idle timeout",
				"idle_timeout = %s: a connection idle that long may already be closed by the server (vLLM closes idle connections after VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5s by default), and a request written on it is lost. Keep it below the server's keep-alive timeout; half of it is safe.", d)
		}
	}
	within := bodyRange(b.Body, b.DefRange)
	if b.Requests == nil && b.Duration == nil && !staged {
		ev.consequenceRange(where, within, "Run without an end",
			"The load block sets neither requests nor duration, so the run would never stop; set requests = N, duration = \"3m\", or both (the first reached ends the run).")
	}
	if b.Concurrency == nil && b.Rate == nil && b.searched == "" && !b.traced && !staged {
		ev.consequenceRange(where, within, "No arrival process",
			"Set concurrency = N for a closed loop of N users, or rate = R for an open loop of R requests per second (with concurrency as an optional cap).")
	}
	b.SelfCheck.fill(ev, &cfg.SelfCheck)
	b.fillStages(ev, cfg)
	if r := b.Ramp; r != nil && !b.traced {
		if b.Rate == nil {
			ev.errorRange(r.DefRange, "Ramp without a rate", "A ramp varies the arrival rate from `from` up to rate; set rate in the load block.")
		}
		cfg.Ramp.Kind = runspec.RampLinear
		if k, ok := ev.str(r.Kind); ok {
			if !runspec.RampShape(k).Valid() {
				ev.errorAt(r.Kind, "Invalid ramp kind", "kind = %q: a ramp is \"linear\" or \"exponential\".%s", k, didYouMean(k, []string{"linear", "exponential"}))
			} else {
				cfg.Ramp.Kind = runspec.RampShape(k)
			}
		}
		if f, ok := ev.num(r.From); ok {
			if f < 0 {
				ev.errorAt(r.From, "Invalid ramp start", "from = %s: the starting rate can't be negative.", plan.FormatNumber(f))
			} else {
				cfg.Ramp.From = f
			}
		}
		if r.Over == nil {
			ev.consequenceNamed(r.DefRange, bodyRange(r.Body, r.DefRange), "over", "Missing required argument",
				"The argument \"over\" is required here: how long the ramp takes to reach rate, like over = \"1m\".")
		}
		if d, ok := ev.duration(r.Over); ok {
			cfg.Ramp.Over = d
		}
	}
}

// concurrencyOf evaluates a concurrency: at least 1, and warned when
// absurd.
func concurrencyOf(ev *evaluator, attr *hcl.Attribute) (int, bool) {
	n, ok := ev.int(attr)
	if !ok {
		return 0, false
	}
	if n < 1 {
		ev.errorAt(attr, "Invalid concurrency", "concurrency = %d: it is how many requests may be in flight at once, so it must be at least 1.", n)
		return 0, false
	}
	if n > AbsurdConcurrency {
		ev.warnAt(attr, "Absurd concurrency",
			"concurrency = %d: one vLLM server runs a few hundred sequences at once (max_num_seqs), and every request in flight holds a connection and a file descriptor here. Did you mean a smaller number?", n)
	}
	return n, true
}

// rateOf evaluates an arrival rate: above zero, and warned when absurd.
func rateOf(ev *evaluator, attr *hcl.Attribute) (float64, bool) {
	r, ok := ev.num(attr)
	if !ok {
		return 0, false
	}
	if r <= 0 {
		ev.errorAt(attr, "Invalid rate", "rate = %s: it is the mean arrival rate in requests per second and must be above zero (leave it out for a closed loop).", plan.FormatNumber(r))
		return 0, false
	}
	if r > AbsurdRate {
		ev.warnAt(attr, "Absurd rate", "rate = %s requests per second is far beyond what one server answers; did you mean a smaller number?", plan.FormatNumber(r))
	}
	return r, true
}

// refuseWithTrace reports the knobs of an arrival rate, which a trace
// workload has no use for: its timestamps are the arrivals.
func (b *loadBlock) refuseWithTrace(ev *evaluator) {
	for _, a := range []*hcl.Attribute{b.Rate, b.Burstiness} {
		if a != nil {
			ev.errorAt(a, a.Name+" with a trace", "A trace workload sends each request at its timestamp in the trace, so %s has nothing to shape; leave it out (time_scale in the workload replays the trace faster or slower).", a.Name)
		}
	}
	if b.Ramp != nil {
		ev.errorRange(b.Ramp.DefRange, "Ramp with a trace", "A trace workload sends each request at its timestamp in the trace, so a ramp has no rate to vary; leave it out (time_scale in the workload replays the trace faster or slower).")
	}
}

// errorRange records an error at a range that is not an attribute (a block header).
func (e *evaluator) errorRange(rng hcl.Range, summary, detail string) {
	*e.diags = append(*e.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr()})
}

// consequenceRange records an error that a mistake inside within (such as a
// misspelled attribute) may explain; it is dropped when one is reported.
func (e *evaluator) consequenceRange(rng, within hcl.Range, summary, detail string) {
	e.consequenceNamed(rng, within, "", summary, detail)
}

// consequenceNamed is consequenceRange for a missing attribute called name:
// only a mistake that mentions name (a misspelling of it) explains it.
func (e *evaluator) consequenceNamed(rng, within hcl.Range, name, summary, detail string) {
	*e.diags = append(*e.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(),
		Extra: consequence{within: within, name: name}})
}
