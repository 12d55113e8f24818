package load

import (
	"time"

	"github.com/llmgate/llmgate/results"
)

// Config is everything one run of the load generator needs.
type Config struct {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:8000".
	BaseURL string
	// Model is the served model name sent in every request.
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string

	// Workload says what each request asks for.
	Workload Workload

	// Concurrency caps requests in flight; 0 means no cap (open loop only).
	// With Rate == 0 it is a closed loop of exactly Concurrency users.
	Concurrency int
	// Rate is the mean arrival rate in requests per second; 0 means closed loop.
	Rate float64
	// Burstiness is the gamma shape of inter-arrival gaps; 0 means constant
	// gaps, 1 Poisson, below 1 burstier.
	Burstiness float64
	// Ramp, when set, varies the rate from RampFrom to Rate over the run.
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
	// RunName keys prompt content together with Seed: runs with different
	// names never share prompts (so one run's prompts are not cache hits
	// for the next on the same server); runs with the same name (a
	// baseline and a candidate) get identical prompts.
	RunName string
	// Timeout bounds each request; 0 means a default of 10 minutes.
	Timeout time.Duration
	// SelfCheck holds the bounds of the load generator's check of itself;
	// its zero fields take the defaults.
	SelfCheck SelfCheck
	// OnMeasureStart, when set, is called once, after the warmup and before
	// the first measured send (the runner restarts its /metrics scraper there).
	OnMeasureStart func()
	// Halt, when set and closed, ends the measured phase early: no further
	// request is started and those in flight finish normally (a capacity
	// probe whose outcome is already decided).
	Halt <-chan struct{}
}

// halted reports whether c.Halt is closed.
func (c *Config) halted() bool {
	if c.Halt == nil {
		return false
	}
	select {
	case <-c.Halt:
		return true
	default:
		return false
	}
}

// Ramp describes a rate that changes over the run.
type Ramp struct {
	// Kind is "", "linear" or "exponential".
	Kind string
	// From is the starting rate in requests per second.
	From float64
	// Over is how long the ramp lasts; the rate holds at Config.Rate after it.
	Over time.Duration
}

// Workload kinds.
const (
	WorkloadRandom       = "random"
	WorkloadPrefix       = "prefix"
	WorkloadStructured   = "structured"
	WorkloadConversation = "conversation"
	WorkloadDataset      = "dataset"
)

// Workload describes the prompts of a run.
type Workload struct {
	// Kind is one of the Workload constants.
	Kind string
	// InputTokens and OutputTokens are the mean lengths in tokens.
	InputTokens  int
	OutputTokens int
	// RangeRatio spreads lengths uniformly over [n*(1-r), n*(1+r)].
	RangeRatio float64
	// PrefixTokens is the shared prefix length for the prefix workload.
	PrefixTokens int
	// PrefixGroups is how many distinct prefixes the prefix workload rotates through.
	PrefixGroups int
	// Schema is a JSON schema (as JSON text) for the structured workload.
	Schema string
	// Turns is the number of turns per conversation.
	Turns int
	// ThinkTime is the least time between the end of a conversation's turn
	// and the send of its next turn.
	ThinkTime time.Duration
	// LengthBuckets are the input lengths, in tokens and increasing, that
	// split the run's results into buckets by input length; nil for none.
	LengthBuckets []int
	// DatasetPath is a ShareGPT-format JSON file for the dataset workload.
	DatasetPath string
	// Chat sends text prompts over /v1/chat/completions instead of token ids
	// over /v1/completions.
	Chat bool
	// TextPrompts sends text instead of token ids to /v1/completions, for
	// servers that refuse token-id prompts (Run also switches to text by
	// itself when the server answers a token-id prompt with 400).
	TextPrompts bool
	// IgnoreEOS asks the server to generate exactly max_tokens tokens; default true.
	IgnoreEOS *bool
}

// Record returns the load configuration as the results file keeps it.
func (c Config) Record() results.LoadConfig {
	w := c.Workload
	kind := w.Kind
	if kind == "" {
		kind = WorkloadRandom
	}
	return results.LoadConfig{
		Concurrency: c.Concurrency, Rate: c.Rate, Burstiness: c.Burstiness,
		Ramp: c.Ramp.Kind, RampFrom: c.Ramp.From, RampOverS: c.Ramp.Over.Seconds(),
		Requests: c.Requests, DurationS: c.Duration.Seconds(), Warmup: c.Warmup, RampUpS: c.RampUp.Seconds(), Seed: c.Seed,
		Workload: kind, InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, RangeRatio: w.RangeRatio,
		PrefixTokens: w.PrefixTokens, PrefixGroups: w.PrefixGroups, Turns: w.Turns, ThinkTimeS: w.ThinkTime.Seconds(), LengthBuckets: w.LengthBuckets, Chat: w.Chat, TextPrompts: w.TextPrompts,
	}
}
