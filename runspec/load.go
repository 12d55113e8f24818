package runspec

import "time"

// Load is the load of one run: how requests arrive, how many, for how long
// and what they ask for. The load engine adds where to send them.
type Load struct {
	// Workload says what each request asks for.
	Workload Workload
	// Request is what every request carries besides the workload's
	// fields: extra body members and headers.
	Request Request

	// Concurrency caps requests in flight; 0 means no cap (open loop only).
	// With Rate == 0 it is a closed loop of exactly Concurrency users,
	// except for a trace workload, whose arrivals are the trace's.
	Concurrency int
	// Rate is the mean arrival rate in requests per second; 0 means closed loop.
	Rate float64
	// Burstiness is the gamma shape of inter-arrival gaps; 0 means constant
	// gaps, 1 Poisson, below 1 burstier.
	Burstiness float64
	// Ramp, when set, varies the rate from Ramp.From to Rate over the run.
	Ramp Ramp
	// Requests stops the run after this many measured requests; 0 means no count limit.
	Requests int
	// Duration stops the run after this long; 0 means no time limit.
	Duration time.Duration
	// Warmup requests are sent first and excluded from the metrics. In a
	// closed loop with a warmup, every user's first request is warmup too
	// (the start-up wave is never measured), so the warmup lasts at least
	// one request per user.
	Warmup int
	// RampUp staggers a closed loop's start: user u of n sends its first
	// request u/n of RampUp after the first. 0 starts every user at once.
	RampUp time.Duration
	// Seed makes arrivals and prompts reproducible.
	Seed int64
	// Timeout bounds each request; 0 means a default of 10 minutes.
	Timeout time.Duration
	// IdleTimeout is the longest a connection may sit idle and still carry
	// a request; one idle longer is closed and a fresh one opened. It must
	// stay below the server's keep-alive timeout (vLLM closes idle
	// connections after VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5 s by default), or a
	// request could be written on a connection the server is closing.
	// 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// SelfCheck holds the bounds of the load generator's check of itself;
	// its zero fields take the defaults.
	SelfCheck SelfCheck

	// Mix, when set, replaces Workload: each request draws one of its
	// members by weight, from Seed and the request's index. Workload then
	// holds the first member's workload, for what reads one workload.
	Mix []MixMember
	// Stages, when set, replace Concurrency, Rate, Burstiness, Ramp,
	// Requests and Duration: the stages run one after another.
	Stages []Stage
}

// OpenLoop reports whether requests arrive on a schedule of their own
// (an arrival rate, or a trace's timestamps) rather than as a closed loop's
// users finish.
func (l *Load) OpenLoop() bool {
	return l.Rate > 0 || l.Workload.Kind == WorkloadTrace
}

// DefaultIdleTimeout is Load.IdleTimeout's default: safely below the 5 s
// after which vLLM's HTTP server (uvicorn, VLLM_HTTP_TIMEOUT_KEEP_ALIVE)
// closes an idle keep-alive connection, and above the pauses a closed loop
// usually makes (think times of a second or two keep their connections).
const DefaultIdleTimeout = 3 * time.Second

// RampShape is how a ramp moves its rate from From to Load.Rate.
type RampShape string

// Ramp shapes; "" is no ramp.
const (
	// RampLinear moves the rate by the same step each second.
	RampLinear RampShape = "linear"
	// RampExponential moves it by the same factor each second:
	// rate(t) = From·(To/From)^(t/Over).
	RampExponential RampShape = "exponential"
)

// Valid reports whether s is one of the ramp shapes ("", no ramp, is not).
func (s RampShape) Valid() bool { return s == RampLinear || s == RampExponential }

// Ramp describes a rate that changes over the run.
type Ramp struct {
	// Kind is the ramp's shape; "" for none.
	Kind RampShape
	// From is the starting rate in requests per second.
	From float64
	// Over is how long the ramp lasts; the rate holds at Load.Rate after it.
	Over time.Duration
}
