package suite

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
)

// AbsurdTimeScale is the time_scale above which a suite is warned: a
// trace replayed that much faster says little about the traffic it holds.
const AbsurdTimeScale = 1000

// fillTrace evaluates a trace workload's attributes other than its file
// (readTrace reads that): the format, the time scale, where to start and
// the block size.
func (b *workloadBlock) fillTrace(ev *evaluator, w *runspec.Workload, where, within hcl.Range) {
	if b.File == nil {
		ev.consequenceNamed(where, within, "file", "Trace workload without a file",
			"kind = \"trace\" needs file: the path of the trace, relative to the suite, like file = \"traces/conversation.jsonl\".")
	}
	if b.Format == nil {
		ev.consequenceNamed(where, within, "format", "Trace workload without a format",
			fmt.Sprintf("kind = \"trace\" needs format: one of %s (Mooncake's JSONL, the Azure LLM inference traces' CSV, or llmgate's own JSONL).", strings.Join(trace.Formats, ", ")))
	} else if f, ok := ev.str(b.Format); ok {
		if !contains(trace.Formats, f) {
			ev.errorAt(b.Format, "Unknown trace format", "format = %q: a trace is one of %s (Mooncake's JSONL, the Azure LLM inference traces' CSV, or llmgate's own JSONL).%s", f, strings.Join(trace.Formats, ", "), didYouMean(f, trace.Formats))
		} else {
			w.TraceFormat = f
		}
	}
	if v, ok := ev.num(b.TimeScale); ok {
		switch {
		case v <= 0:
			ev.errorAt(b.TimeScale, "Invalid time_scale", "time_scale = %s: it divides the trace's gaps between requests (2 replays twice as fast, 0.5 half as fast), so it must be above zero.", plan.FormatNumber(v))
		case v > AbsurdTimeScale:
			ev.warnAt(b.TimeScale, "Absurd time_scale", "time_scale = %s replays the trace %s times faster than it arrived; did you mean a smaller number?", plan.FormatNumber(v), plan.FormatNumber(v))
			w.TimeScale = v
		default:
			w.TimeScale = v
		}
	}
	if d, ok := ev.durationFromZero(b.Start); ok {
		w.TraceStart = d
	}
	if n, ok := ev.int(b.BlockSize); ok {
		if n < 1 || n > trace.MaxTokens {
			ev.errorAt(b.BlockSize, "Invalid block_size", "block_size = %d: it is the tokens each of the trace's hash ids stands for (Mooncake's are 512), from 1 to %d.", n, trace.MaxTokens)
		} else {
			w.BlockSize = n
		}
	}
}

// traceRead is one trace file read by a Load, kept for every run that
// replays it.
type traceRead struct {
	t   *trace.Trace
	err error
}

// readTrace reads the trace file of a trace workload (once a file and
// format for the whole suite), sets its absolute path in cfg and checks
// that the part of it the run replays holds what the load asks for. It
// returns nil for other workloads and for a trace it cannot read.
func (l *loader) readTrace(ev *evaluator, b *workloadBlock, lb *loadBlock, cfg *runspec.Load) *trace.Trace {
	w := &cfg.Workload
	if w.Kind != runspec.WorkloadTrace || b == nil {
		return nil
	}
	p, ok := ev.str(b.File)
	if !ok || w.TraceFormat == "" {
		return nil
	}
	rel, err := l.files.resolve(p)
	if err != nil {
		ev.errorAt(b.File, "Trace not readable", "%v.", err)
		return nil
	}
	abs := filepath.Join(l.files.root, rel)
	key := w.TraceFormat + "\x00" + abs
	r, seen := l.traces[key]
	if !seen {
		r.t, r.err = l.openTrace(p, w.TraceFormat)
		if l.traces == nil {
			l.traces = map[string]traceRead{}
		}
		l.traces[key] = r
	}
	if r.err != nil {
		ev.errorAt(b.File, "Trace not readable", "%v.", r.err)
		return nil
	}
	w.TracePath = abs
	checkTraceWindow(ev, b, lb, cfg, r.t)
	return r.t
}

// openTrace reads the trace at p inside the suite's tree.
func (l *loader) openTrace(p, format string) (*trace.Trace, error) {
	f, err := l.files.open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return trace.ReadOpen(f, p, format)
}

// checkTraceWindow checks that the rows of t the run replays are there:
// some rows from start, and as many as warmup and requests ask for.
func checkTraceWindow(ev *evaluator, b *workloadBlock, lb *loadBlock, cfg *runspec.Load, t *trace.Trace) {
	w := cfg.Workload
	all := trace.Window{Start: w.TraceStart}.Rows(t)
	if len(all) == 0 {
		last := t.Rows[len(t.Rows)-1].At
		if b.Start != nil {
			ev.errorAt(b.Start, "Start past the trace's end", "start = %s is after the trace's last request, %s after its first; start earlier.", w.TraceStart, last)
		}
		return
	}
	want := cfg.Warmup + cfg.Requests
	if cfg.Requests > 0 && lb != nil && lb.Requests != nil && want > len(all) {
		from := ""
		if w.TraceStart > 0 {
			from = fmt.Sprintf(" from start = %s", w.TraceStart)
		}
		warm := ""
		if cfg.Warmup > 0 {
			warm = fmt.Sprintf(" and warmup = %d", cfg.Warmup)
		}
		ev.errorAt(lb.Requests, "More requests than the trace holds", "requests = %d%s needs %d rows, but the trace has %d%s; ask for at most %d, or start earlier.", cfg.Requests, warm, want, len(all), from, max(len(all)-cfg.Warmup, 0))
	}
}

// durationFromZero evaluates attr as a duration string that may be zero,
// such as "0s" or "90s".
func (e *evaluator) durationFromZero(attr *hcl.Attribute) (time.Duration, bool) {
	v, ok := e.value(attr)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.String {
		e.errorAt(attr, "Invalid duration", "%s must be a duration string with a unit, like \"0s\", \"90s\" or \"1h30m\".", attr.Name)
		return 0, false
	}
	d, err := time.ParseDuration(v.AsString())
	switch {
	case err != nil:
		e.errorAt(attr, "Invalid duration", "%s = %q is not a duration; write it with a unit, like \"0s\", \"90s\" or \"1h30m\".", attr.Name, v.AsString())
		return 0, false
	case d < 0:
		e.errorAt(attr, "Invalid duration", "%s = %q: it must not be negative.", attr.Name, v.AsString())
		return 0, false
	}
	return d, true
}
