package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// sinkBuffer is how many finished requests may wait for the progress
// renderer before the load generator's sends block.
const sinkBuffer = 4096

// execute carries out one run against a started instance. The returned run
// is always recorded. fatal means the server can take no more runs (it
// stopped responding, or ctx ended); err is non-nil when the run is not ok
// for a reason outside the load generator's self-checks.
func (r *runner) execute(ctx context.Context, inst backend.Instance, apiKey string, sr *plan.Run, ref string) (run results.Run, fatal bool, err error) {
	return r.executeUntil(ctx, inst, apiKey, sr, ref, nil)
}

// executeUntil is execute with a halt channel: closing it ends the run's
// measured phase early (see load.Config.Halt); nil never halts.
func (r *runner) executeUntil(ctx context.Context, inst backend.Instance, apiKey string, sr *plan.Run, ref string, halt <-chan struct{}) (run results.Run, fatal bool, err error) {
	run = newRun(sr, ref)
	ps := r.server(ctx, inst, apiKey, ref)
	run.MissingFeatures = ps.missing
	cfg := load.Config{Load: sr.Load, BaseURL: inst.BaseURL(), Model: inst.Model(), APIKey: apiKey, RunName: sr.Name, Halt: halt, Trace: sr.Trace,
		Server: ps.loadFeatures()}
	if cfg, err = load.ResolveLengthBuckets(cfg); err != nil {
		run.Status, run.Error = results.StatusFailed, untrusted.String(err.Error())
		return run, false, fmt.Errorf("run %s: %w", sr.Name, err)
	}
	lc := load.Recorded(cfg.Load, cfg.Trace)
	run.Load = &lc
	if msg := mixContextProblem(cfg.Load, cfg.Trace, ps.contextLimit(cfg.Model), "max_model_len in /v1/models"); msg != "" {
		now := r.now().UTC()
		run.Status, run.Error, run.Started, run.Finished = results.StatusFailed, untrusted.String(msg), now, now
		return run, false, fmt.Errorf("run %s: %s", sr.Name, msg)
	}
	// Start cold: the previous run's prompts must not be cache hits here.
	reset := serverinfo.ResetPrefixCache(ctx, serverinfo.Options{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model}, ps.feats)
	run.PrefixCache = &reset
	r.progress.Report(event.RunStarted{
		Index: r.done, Runs: r.total, Name: sr.Name, Scenario: sr.Scenario,
		Requests: plannedTotal(cfg.Load).Requests, Warmup: cfg.Warmup, Duration: plannedTotal(cfg.Load).Duration,
		Concurrency: cfg.Concurrency, Rate: cfg.Rate,
	})

	res, server, series, t0, t1, lerr := r.drive(ctx, cfg, inst, ps.scrapes())
	run.ServerSeries = series.server
	run.GPUSeries = series.gpu
	var health load.Health
	run.Started, run.Finished = t0.UTC(), t1.UTC()
	if res != nil {
		if !res.Start.IsZero() {
			run.Started, run.Finished = res.Start.UTC(), res.End.UTC()
		}
		a, h := res.Analyze(cfg, results.SummarizeOptions{
			GoodputTTFT: sr.Goodput.TTFT, GoodputTPOT: sr.Goodput.TPOT, GoodputE2EL: sr.Goodput.E2EL,
			LengthBuckets: cfg.Workload.LengthBuckets, LengthBucketNames: cfg.Workload.LengthBucketNames,
		})
		run.Summary, run.Samples, run.Requests = a.Summary, a.Samples, a.Requests
		run.Summary.Server = server
		run.Summary.GPU = series.gpuSummary
		if g := run.Summary.GPU; g != nil {
			g.SetEnergy(series.gpu, run.Summary.DurationSeconds, run.Summary.OutputTokens)
		}
		if st, ok := inst.(backend.StartupTimer); ok {
			run.Summary.Startup = st.Startup()
		}
		cal := res.Calibration
		run.Calibration = &cal
		run.Dataset = res.Dataset
		run.Lengths = a.Lengths
		health = h
		run.Unchecked = h.Unchecked
	}

	switch {
	case ctx.Err() != nil:
		run.Status = results.StatusPartial
		run.Error = untrusted.String("interrupted: " + context.Cause(ctx).Error())
		err, fatal = fmt.Errorf("interrupted during %s: %w", sr.Name, ctx.Err()), true
	case lerr != nil && errors.Is(lerr, load.ErrUnreachable):
		run.Status = results.StatusFailed
		run.Error = untrusted.String(lerr.Error())
		err, fatal = unavailable(fmt.Errorf("run %s: %w", sr.Name, lerr)), true
	case lerr != nil:
		run.Status = results.StatusFailed
		run.Error = untrusted.String(lerr.Error())
		err = fmt.Errorf("run %s: %w", sr.Name, lerr)
	case res == nil:
		run.Status = results.StatusFailed
		run.Error = "the load generator returned no result"
		err = fmt.Errorf("run %s: %s", sr.Name, run.Error)
	}
	if err == nil && run.Summary.Requests.Failed > 0 {
		// Failures may mean the server died under us: ask it.
		if perr := probe(ctx, cfg.BaseURL); perr != nil {
			run.Status = results.StatusPartial
			run.Error = untrusted.String("the server stopped responding during the run: " + perr.Error())
			err, fatal = unavailable(fmt.Errorf("run %s: %s", sr.Name, run.Error)), true
		}
	}
	if err == nil && run.Summary.Requests.Completed == 0 {
		run.Status = results.StatusFailed
		run.Error = untrusted.String(fmt.Sprintf("no request completed (%d failed)", run.Summary.Requests.Failed))
		if first := firstError(res.Records); first != "" {
			run.Error += untrusted.String("; first error: " + first)
		}
		err = unavailable(fmt.Errorf("run %s: %s", sr.Name, run.Error))
	}
	if err == nil {
		run.Status = results.StatusOK
		problems := append([]string(nil), health.Problems...)
		p, unchecked := prefixHitProblem(prefixWorkload(cfg.Load), run.Summary.Server, templateHits(cfg.Workload, ps.feats.TemplatePrefix, run.Summary.Requests))
		if p != "" {
			problems = append(problems, p)
		}
		if unchecked != "" {
			run.Unchecked = append(run.Unchecked, unchecked)
		}
		problems = append(problems, lengthProblems(run.Lengths, cfg.SelfCheck.WithDefaults().MaxLengthError)...)
		if len(problems) > 0 {
			run.Status = results.StatusInvalid
			run.InvalidReasons = problems
		}
	}
	if run.Status != results.StatusFailed {
		run.Asserts = sr.EvalAsserts(&run.Summary)
	}
	return run, fatal, err
}

// drive runs the load of one run while the server's /metrics is scraped and
// every finished request is reported to Progress. The scraper is stopped and
// the progress channel drained on every path out, a panic in load.Run
// included, so no goroutine outlives the run.
func (r *runner) drive(ctx context.Context, cfg load.Config, inst backend.Instance, scrape bool) (res *load.Result, server *results.ServerMetrics, series driveSeries, t0, t1 time.Time, err error) {
	sink := make(chan results.Record, sinkBuffer)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for rec := range sink {
			r.progress.Report(event.RequestDone{Record: rec})
		}
	}()
	// A server whose probe found no /metrics llmgate reads is not scraped.
	var scraper *load.Scraper
	if scrape {
		scraper = load.NewScraper(cfg.BaseURL, cfg.APIKey, r.opts.ScrapeInterval)
		scraper.Start(ctx)
	}
	// Server metrics cover the measured phase only, as the latencies do.
	gpus := startGPUSampler(ctx, inst, r.opts.GPUInterval, r.now)
	// Without a warmup the measured phase begins at the first send, and the
	// scrape Start took before the load began is its exact "before": a
	// Restart would take it again on a goroutine of its own, and the first
	// requests could reach the server's counters ahead of it.
	restartScraper := scraper != nil && cfg.Warmup > 0
	cfg.OnMeasureStart = func() {
		if restartScraper {
			scraper.Restart(ctx)
		}
		gpus.Restart()
	}
	defer func() {
		if scraper != nil {
			server, series.server = scraper.Stop()
		}
		series.gpu, series.gpuSummary = gpus.Stop()
		close(sink) // load.Run has returned: nothing sends any more
		<-drained
	}()
	t0 = r.now()
	res, err = load.Run(ctx, cfg, sink)
	t1 = r.now()
	return res, server, series, t0, t1, err
}

// driveSeries are the time series sampled while a run was driven.
type driveSeries struct {
	server     *results.ServerSeries
	gpu        *results.GPUSeries
	gpuSummary *results.GPUMetrics
}

// firstError returns the reason of the first failed measured request.
func firstError(recs []results.Record) string {
	for i := range recs {
		if !recs[i].Warmup && !recs[i].OK() {
			return recs[i].Error
		}
	}
	return ""
}

// probeTimeout bounds the liveness check after a run with failures.
const probeTimeout = 5 * time.Second

// probe reports whether the server at baseURL still answers: any HTTP
// answer below 500 to GET /health counts (an endpoint without /health
// answers 404 and is alive; vLLM answers 500 once its engine died).
func probe(ctx context.Context, baseURL string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	h, err := backend.GetHealth(ctx, nil, baseURL)
	if err != nil {
		return err
	}
	if !h.Alive() {
		return errors.New(h.String())
	}
	return nil
}

// MaxUndeclaredPrefixHitRate is the most prefix-cache hits a workload that
// declares no shared prefix may see: its prompts are unique, so more means
// the server answered from a cache the run did not mean to use (prompts
// repeated from an earlier run, or a shared cache nobody reset).
const MaxUndeclaredPrefixHitRate = 0.05

// prefixHitProblem flags a run whose workload shares no prefix (random or
// dataset prompts) but whose server reported prefix-cache hits above
// MaxUndeclaredPrefixHitRate; "" when fine or unknown. template is the
// hits the chat template's shared prefix accounts for (see templateHits):
// real chat templates put the same tokens before every message, and vLLM
// counts their cached blocks as hits, so they are left out of the check.
// Without the server's prefix-cache counters (no /metrics, or a server
// that counts none) or with preemptions (a preempted request recomputed
// hits its own blocks) the check cannot be made, and unchecked says so:
// a check not made is not one passed.
func prefixHitProblem(wl runspec.Workload, server *results.ServerMetrics, template float64) (problem, unchecked string) {
	switch wl.Kind {
	case runspec.WorkloadRandom, runspec.WorkloadDataset, "":
	default:
		return "", "" // prefix, conversation and structured prompts share a prefix on purpose
	}
	if server == nil || server.PrefixCacheHitRate == nil {
		return "", "prefix-cache hits: not checked: the server reports no prefix-cache counters (vLLM's vllm:prefix_cache_queries and _hits, SGLang's)"
	}
	if server.Preemptions > 0 {
		return "", fmt.Sprintf("prefix-cache hits: not checked: %.0f preemptions (a preempted request recomputed hits its own cached blocks)", server.Preemptions)
	}
	rate := *server.PrefixCacheHitRate
	if q, h := server.PrefixCacheQueries, server.PrefixCacheHits; template > 0 && q != nil && h != nil && *q > 0 {
		rate = max(*h-template, 0) / *q
	}
	if rate <= MaxUndeclaredPrefixHitRate {
		return "", ""
	}
	what := ""
	if template > 0 {
		what = " beyond the chat template's shared prefix"
	}
	return fmt.Sprintf("prefix-cache hit rate %.1f%%%s on a %s workload that shares no prefix (bound %.0f%%): the server answered from prompts cached before the run", 100*rate, what, wl.Kind, 100*MaxUndeclaredPrefixHitRate), ""
}

// templateHits is the most prefix-cache hits, in tokens, the chat
// template's shared prefix of prefix tokens (measured by the server's
// probe, -1 unknown) can account for in a chat run of these requests: that
// prefix once for every request but the first.
func templateHits(wl runspec.Workload, prefix int, n results.Requests) float64 {
	chat := wl.Chat || wl.Kind == runspec.WorkloadDataset && wl.DatasetFormat == ""
	if !chat || prefix <= 0 {
		return 0
	}
	return float64(prefix) * float64(max(n.Completed+n.Failed-1, 0))
}

// lengthProblems flags mean lengths more than bound (a fraction) off what
// the workload asked for, each with what to do about it: answers cut short
// come from a server that ends them itself (it does not honour ignore_eos
// and min_tokens), prompts cut short from one that truncates them to its
// context.
func lengthProblems(l *results.Lengths, bound float64) []string {
	if l == nil {
		return nil
	}
	var out []string
	off := func(what string, req, act float64, why string) {
		if req > 0 && (act < req*(1-bound) || act > req*(1+bound)) {
			p := fmt.Sprintf("mean %s length %.1f tokens is %+.1f%% off the requested %.0f (bound ±%.0f%%)", what, act, 100*(act/req-1), req, 100*bound)
			if act < req && why != "" {
				p += ": " + why
			}
			out = append(out, p)
		}
	}
	off("prompt", l.InputRequested, l.InputActual, fmt.Sprintf(
		"the server counted fewer prompt tokens than were sent (at most %d of up to %d asked): it may truncate prompts to its context; keep input_tokens and output_tokens within the model's context, or loosen self_check { length }", l.InputActualMax, l.InputRequestedMax))
	off("answer", l.OutputRequested, l.OutputActual,
		"the server ended answers before max_tokens: it may not honour ignore_eos and min_tokens (Ollama and some simulators do not); set ignore_eos = false in the workload to let answers end where the model ends them, or loosen self_check { length }")
	return out
}
