package load

import (
	"net/textproto"
	"path/filepath"
	"time"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// Config is everything one run of the load generator needs: the run's
// planned load and where to send it.
type Config struct {
	// Load is the run's load as the suite planned it.
	runspec.Load

	// BaseURL is the server's root, e.g. "http://127.0.0.1:8000".
	BaseURL string
	// Model is the served model name sent in every request.
	Model string
	// APIKey is sent as a bearer token when set.
	APIKey string
	// RunName keys prompt content together with Seed: runs with different
	// names never share prompts (so one run's prompts are not cache hits
	// for the next on the same server); runs with the same name (a
	// baseline and a candidate) get identical prompts.
	RunName string
	// OnMeasureStart, when set, is called once, after the warmup and before
	// the first measured send (the runner restarts its /metrics scraper and
	// GPU sampler there). It is called on the goroutine that paces the
	// sends (an open loop's dispatcher), so it must not wait on the server:
	// Scraper.Restart scrapes apart, and a slow /metrics would delay every
	// send after it.
	OnMeasureStart func()
	// Halt, when set and closed, ends the measured phase early: no further
	// request is started and those in flight finish normally (a capacity
	// probe whose outcome is already decided).
	Halt <-chan struct{}
	// Server is what package serverinfo found about the server that the run
	// uses; the zero value assumes vLLM's features.
	Server ServerFeatures
	// Trace is the trace a trace workload replays, as the suite read it;
	// nil reads Workload.TracePath.
	Trace *trace.Trace
}

// ServerFeatures is what serverinfo found about a server that the load
// engine uses, copied over by the runner once per server; the zero value
// assumes a server that has everything vLLM has.
type ServerFeatures struct {
	// NoTokenize says the server has no /tokenize: text prompts are
	// calibrated by usage without asking it again every run.
	NoTokenize bool
	// TokenIDsRefused, when set, is the server's refusal of a token-id
	// prompt: the run sends text from the start instead of probing again.
	TokenIDsRefused string
	// IdleTimeout is how long the server keeps an idle keep-alive
	// connection open before closing it; 0 when unknown.
	IdleTimeout time.Duration
	// MaxModelLen is the served model's context from /v1/models; 0 when
	// the server does not say.
	MaxModelLen int
}

// IdleLimit is the longest a connection may be idle and still carry a
// request: Load.IdleTimeout (runspec.DefaultIdleTimeout when 0), or half
// the server's known keep-alive timeout when that is shorter.
func (c *Config) IdleLimit() time.Duration {
	limit := c.IdleTimeout
	if limit <= 0 {
		limit = runspec.DefaultIdleTimeout
	}
	if s := c.Server.IdleTimeout; s > 0 {
		limit = min(limit, s/2)
	}
	return limit
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

// Recorded returns a run's load as the results file keeps it; t is the
// trace a trace workload replays (nil for others, or when unknown).
func Recorded(c runspec.Load, t *trace.Trace) results.LoadConfig {
	w := c.Workload
	kind := w.Kind
	if kind == "" {
		kind = runspec.WorkloadRandom
	}
	lc := results.LoadConfig{
		Concurrency: c.Concurrency, Rate: c.Rate, Burstiness: c.Burstiness,
		Ramp: string(c.Ramp.Kind), RampFrom: c.Ramp.From, RampOverS: c.Ramp.Over.Seconds(),
		Requests: c.Requests, DurationS: c.Duration.Seconds(), Warmup: c.Warmup, RampUpS: c.RampUp.Seconds(), Seed: c.Seed,
		Workload: string(kind), InputTokens: w.InputTokens, OutputTokens: w.OutputTokens, RangeRatio: w.RangeRatio,
		PrefixTokens: w.PrefixTokens, PrefixGroups: w.PrefixGroups, Turns: w.Turns, ThinkTimeS: w.ThinkTime.Seconds(), LengthBuckets: w.LengthBuckets,
		LengthQuantiles: w.LengthQuantiles, LengthBucketNames: w.LengthBucketNames, Chat: w.Chat, TextPrompts: w.TextPrompts,
		DatasetFilter: w.DatasetFilter, DatasetFormat: w.DatasetFormat, MaxPromptTokens: w.MaxPromptTokens, MaxTotalTokens: w.MaxTotalTokens,
		TraceFormat: w.TraceFormat, TimeScale: w.TimeScale, TraceStartS: w.TraceStart.Seconds(), BlockSize: w.BlockSize,
	}
	if w.TracePath != "" {
		lc.Trace = filepath.Base(w.TracePath)
	}
	if t != nil {
		lc.TraceDigest = t.Digest
	}
	lc.Request = recordRequest(c.Request)
	lc.Mix, lc.Stages = recordParts(c)
	return lc
}

// recordRequest is r as the results file keeps it: the extra body as one
// JSON object, the headers with their secret values masked; nil for an
// empty r.
func recordRequest(r runspec.Request) *results.RequestShape {
	if len(r.ExtraBody) == 0 && len(r.Headers) == 0 {
		return nil
	}
	rs := &results.RequestShape{}
	if len(r.ExtraBody) > 0 {
		rs.ExtraBody = "{" + string(r.ExtraBody) + "}"
	}
	for _, h := range r.Headers {
		v := h.Value
		if h.Secret {
			v = untrusted.Masked
		}
		rs.Headers = append(rs.Headers, results.RequestHeader{Name: textproto.CanonicalMIMEHeaderKey(h.Name), Value: v})
	}
	return rs
}
