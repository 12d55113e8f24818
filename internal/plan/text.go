package plan

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// WriteText prints the plan for people, one block per server start: the
// target and its effective args, then each run with its load and workload.
func (p *Plan) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	runs := 0
	for _, g := range p.Groups {
		runs += len(g.Runs)
	}
	ew.printf("%d run(s) in %d server group(s)\n", runs, len(p.Groups))
	wholes := map[*trace.Trace]trace.Summary{} // a trace's whole-file summary, once per file
	for i, g := range p.Groups {
		ew.printf("\ngroup %d: %s\n", i+1, describeTarget(g))
		for _, r := range g.Runs {
			ew.printf("  %s\n", r.Name)
			writeLoadAndWorkload(ew, r.Load)
			if r.Trace != nil {
				run, whole := describeTrace(r.Trace, r.Load, wholes)
				ew.printf("    trace:    this run: %s\n", run)
				ew.printf("              whole file: %s\n", whole)
			}
			if rq := describeRequest(r.Load.Request); rq != "" {
				ew.printf("    request:  %s\n", rq)
			}
			if gp := r.Goodput; gp != (Goodput{}) {
				ew.printf("    goodput:  %s\n", describeGoodput(gp))
			}
			for _, a := range r.Asserts {
				ew.printf("    assert %s: %s\n", a.Name, a.Source)
			}
		}
	}
	return ew.err
}

func describeTarget(g *Group) string {
	t := g.Target
	if t == nil {
		return "(no target)"
	}
	var parts []string
	switch t.Kind {
	case "server":
		parts = append(parts, "image "+t.Image, "model "+t.Model)
	case "endpoint":
		parts = append(parts, "url "+t.URL)
		if t.Model != "" {
			parts = append(parts, "model "+t.Model)
		}
	case "simulator":
		parts = append(parts, "profile "+t.Profile)
		if t.Model != "" {
			parts = append(parts, "model "+t.Model)
		}
	}
	if args := append(append([]string(nil), t.Args...), g.ServerArgs...); len(args) > 0 {
		parts = append(parts, "args "+strings.Join(args, " "))
	}
	if t.DCGMExporter != "" {
		parts = append(parts, "GPUs from "+t.DCGMExporter)
	}
	return t.Ref() + " (" + strings.Join(parts, ", ") + ")"
}

// DescribeLoad renders a load configuration in one line, as --plan prints it.
func DescribeLoad(c runspec.Load) string {
	var parts []string
	if c.Workload.Kind == runspec.WorkloadTrace {
		s := "open loop at the trace's timestamps"
		if ts := c.Workload.TimeScale; ts > 0 && ts != 1 {
			s += fmt.Sprintf(" (time_scale %s)", FormatNumber(ts))
		}
		parts = append(parts, s)
		if c.Concurrency > 0 {
			parts = append(parts, fmt.Sprintf("at most %d in flight", c.Concurrency))
		}
	} else if c.Rate > 0 {
		s := fmt.Sprintf("open loop at %s req/s", FormatNumber(c.Rate))
		if c.Burstiness > 0 {
			s += fmt.Sprintf(" (burstiness %s)", FormatNumber(c.Burstiness))
		}
		parts = append(parts, s)
		if c.Concurrency > 0 {
			parts = append(parts, fmt.Sprintf("at most %d in flight", c.Concurrency))
		}
		if c.Ramp.Kind != "" {
			parts = append(parts, fmt.Sprintf("%s ramp from %s req/s over %s", c.Ramp.Kind, FormatNumber(c.Ramp.From), c.Ramp.Over))
		}
	} else {
		parts = append(parts, fmt.Sprintf("closed loop, %d concurrent", c.Concurrency))
		if c.RampUp > 0 {
			parts = append(parts, "users started over "+c.RampUp.String())
		}
	}
	if c.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests", c.Requests))
	}
	if c.Duration > 0 {
		parts = append(parts, "for "+c.Duration.String())
	}
	if c.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("%d warmup", c.Warmup))
	}
	if c.Seed != 0 {
		parts = append(parts, fmt.Sprintf("seed %d", c.Seed))
	}
	if c.Timeout > 0 {
		parts = append(parts, "timeout "+c.Timeout.String())
	}
	return strings.Join(parts, ", ")
}

// describeRequest renders a run's request shape in one line, a secret
// header's value masked; "" for none.
func describeRequest(r runspec.Request) string {
	var parts []string
	if len(r.ExtraBody) > 0 {
		parts = append(parts, "extra_body {"+string(r.ExtraBody)+"}")
	}
	if len(r.Headers) > 0 {
		hs := make([]string, len(r.Headers))
		for i, h := range r.Headers {
			v := h.Value
			if h.Secret {
				v = untrusted.Masked
			}
			hs[i] = h.Name + ": " + v
		}
		parts = append(parts, "headers "+strings.Join(hs, ", "))
	}
	return untrusted.Line(strings.Join(parts, "; "))
}

// DescribeWorkload renders a workload in one line, as --plan prints it.
func DescribeWorkload(w runspec.Workload) string {
	parts := []string{string(w.Kind)}
	if w.InputTokens > 0 || w.OutputTokens > 0 {
		s := fmt.Sprintf("%d in / %d out tokens", w.InputTokens, w.OutputTokens)
		if w.RangeRatio > 0 {
			s += fmt.Sprintf(" ±%s%%", FormatNumber(w.RangeRatio*100))
		}
		parts = append(parts, s)
	}
	switch w.Kind {
	case runspec.WorkloadPrefix:
		parts = append(parts, fmt.Sprintf("%d-token prefix shared in %d group(s)", w.PrefixTokens, w.PrefixGroups))
	case runspec.WorkloadStructured:
		parts = append(parts, fmt.Sprintf("schema of %d bytes", len(w.Schema)))
	case runspec.WorkloadConversation:
		parts = append(parts, fmt.Sprintf("%d turns", w.Turns))
	case runspec.WorkloadTrace:
		parts = append(parts, w.TraceFormat+" file "+w.TracePath)
		if w.TraceStart > 0 {
			parts = append(parts, "from "+w.TraceStart.String())
		}
		if bs := w.BlockSize; bs > 0 || w.TraceFormat != trace.FormatAzure {
			if bs == 0 {
				bs = trace.DefaultBlockSize
			}
			parts = append(parts, fmt.Sprintf("hash ids of %d-token blocks", bs))
		}
	case runspec.WorkloadDataset:
		parts = append(parts, "dataset "+w.DatasetPath)
		if w.DatasetFormat != "" {
			parts = append(parts, "format "+w.DatasetFormat)
		}
		if w.MaxPromptTokens > 0 {
			parts = append(parts, fmt.Sprintf("prompts of at most %d tokens", w.MaxPromptTokens))
		}
		if w.MaxTotalTokens > 0 {
			parts = append(parts, fmt.Sprintf("prompt and answer of at most %d tokens", w.MaxTotalTokens))
		}
		if w.DatasetFilter != "" {
			parts = append(parts, "dataset_filter "+w.DatasetFilter)
		}
	}
	if b := describeBuckets(w); b != "" {
		parts = append(parts, b)
	}
	if w.TextPrompts {
		parts = append(parts, "text prompts")
	}
	if w.Chat {
		parts = append(parts, "chat")
	}
	if w.IgnoreEOS != nil && !*w.IgnoreEOS {
		parts = append(parts, "stops at EOS")
	}
	return strings.Join(parts, ", ")
}

// describeBuckets renders a workload's input-length buckets by name and
// edge, "length buckets short < 2048 ≤ long", or its quantile buckets; ""
// for none.
func describeBuckets(w runspec.Workload) string {
	names := w.LengthBucketNames
	switch {
	case w.LengthQuantiles > 0 && len(names) > 0:
		return fmt.Sprintf("length buckets %s to %s (%d quantiles of the prompts' lengths)", names[0], names[len(names)-1], w.LengthQuantiles)
	case len(w.LengthBuckets) == 0 || len(names) != len(w.LengthBuckets)+1:
		return ""
	}
	s := "length buckets " + names[0]
	for i, e := range w.LengthBuckets {
		s += fmt.Sprintf(" < %d ≤ %s", e, names[i+1])
	}
	return s
}

// describeTrace renders what a run replays of t and what the whole file
// holds: requests, span, mean lengths, shared and reusable prompt tokens.
// wholes keeps each file's summary, which a sweep's runs share.
func describeTrace(t *trace.Trace, c runspec.Load, wholes map[*trace.Trace]trace.Summary) (run, whole string) {
	w := c.Workload
	win := trace.Window{Start: w.TraceStart, Warmup: c.Warmup, Requests: c.Requests, Duration: c.Duration, TimeScale: w.TimeScale}
	all, ok := wholes[t]
	if !ok {
		all = trace.Summarize(t.Rows, w.BlockSize)
		wholes[t] = all
	}
	mine := trace.Summarize(win.Rows(t), w.BlockSize)
	run = describeTraceSummary(mine)
	if ts := w.TimeScale; ts > 0 && ts != 1 {
		run += fmt.Sprintf(", replayed in %s", roundSpan(win.Scaled(mine.Span)))
	}
	whole = describeTraceSummary(all)
	if t.Reordered > 0 {
		whole += fmt.Sprintf("; %d rows came after a later one in the file and are replayed in time order", t.Reordered)
	}
	return run, whole
}

// roundSpan rounds a trace's span for reading: to the millisecond below
// a minute, to the second above.
func roundSpan(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

func describeTraceSummary(s trace.Summary) string {
	out := fmt.Sprintf("%d requests over %s, mean %.0f input / %.0f output tokens, %.1f%% of prompt tokens in shared blocks (%.1f%% reusable as a cached prefix)",
		s.Requests, roundSpan(s.Span), s.MeanInput, s.MeanOutput, 100*s.Shared, 100*s.Reusable)
	if s.Texts > 0 {
		out += fmt.Sprintf(", %d with their own prompt", s.Texts)
		if s.Estimated > 0 {
			out += fmt.Sprintf(" (%d of their lengths estimated at a token per 4 bytes)", s.Estimated)
		}
	}
	return out
}

func describeGoodput(g Goodput) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"ttft", g.TTFT}, {"tpot", g.TPOT}, {"e2el", g.E2EL}} {
		if f.v > 0 {
			parts = append(parts, fmt.Sprintf("%s <= %s ms", f.name, FormatNumber(f.v)))
		}
	}
	return strings.Join(parts, ", ")
}

// errWriter remembers the first write error so printing code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

// WithEndpoint is the plan as `--target URL` runs it: every group sent to
// the running server at url, asking for model ("" keeps each target's),
// its server_args dropped (a running server cannot take them).
func (p *Plan) WithEndpoint(url, model string) *Plan {
	out := &Plan{}
	for _, g := range p.Groups {
		t := &Target{Target: runspec.Target{Kind: runspec.KindEndpoint, Name: "target", URL: url, Model: model}}
		if model == "" && g.Target != nil {
			t.Model = g.Target.Model
		}
		out.Groups = append(out.Groups, &Group{Target: t, Runs: g.Runs})
	}
	return out
}
