package progress

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// How often the renderers update.
const (
	barEvery  = 250 * time.Millisecond // live bar: at most 4 redraws a second
	lineEvery = 5 * time.Second        // plain lines: every 5 s, or every 10 %
	barWidth  = 10
	// liveWidth keeps the live line within an 80-column terminal: a line
	// that wraps cannot be redrawn in place with \r.
	liveWidth = 79
	// maxErrorText bounds a run's error on its progress line.
	maxErrorText = 200
	// maxStartErrorText bounds why a server did not start on its line: the
	// one thing a failed start has to say, whole (Docker's message names the
	// image, the registry and the cause last), and still bounded.
	maxStartErrorText = 2000
)

// text renders progress as text: server and run lines, plus a live bar
// redrawn in place (live) or a plain line every few seconds.
type text struct {
	w    io.Writer
	live bool
	now  func() time.Time

	t        runStats
	lastDraw time.Time
	lastTen  int  // last tenth of the run a plain line was printed for
	drawn    bool // a bar is on screen and must be cleared
	endpoint bool // the current group's target is an endpoint
}

// NewTerminal returns a event.Progress for a terminal: a live bar redrawn in place
// (done/total, req/s, in flight, running TTFT p50) at most four times a second.
func NewTerminal(w io.Writer) event.Progress { return &text{w: w, live: true, now: time.Now} }

// NewLines returns a event.Progress for logs: one plain line per event and, while
// a run goes, a line every 5 seconds or every 10 % of the run.
func NewLines(w io.Writer) event.Progress { return &text{w: w, now: time.Now} }

// NewRenderer picks the renderer for w: the live bar when w is a terminal,
// plain lines otherwise, with ::group:: lines around each scenario under
// GitHub Actions.
func NewRenderer(w io.Writer, terminal, githubActions bool) event.Progress {
	var p event.Progress = NewLines(w)
	if terminal && !githubActions {
		p = NewTerminal(w)
	}
	if githubActions {
		p = NewGitHub(w, p)
	}
	return p
}

var (
	_ event.Progress = (*text)(nil)
	_ event.Progress = (*github)(nil)
)

// Report renders e.
func (p *text) Report(e event.Event) {
	switch e := e.(type) {
	case event.PlanStarted:
		p.printf("Suite %s: %s in %s\n", e.Suite, words.Count(e.Runs, "run", "runs"), words.Count(e.Groups, "server group", "server groups"))
	case event.ServerStarting:
		p.endpoint = e.Kind == runspec.KindEndpoint
		if p.endpoint {
			note := ""
			if len(e.ServerArgs) > 0 {
				note = " (server_args " + strings.Join(e.ServerArgs, " ") + " ignored: it is already running)"
			}
			p.printf("Checking %s (endpoint)%s\n", e.Target, note)
			return
		}
		args := ""
		if len(e.ServerArgs) > 0 {
			args = " with " + strings.Join(e.ServerArgs, " ")
		}
		p.printf("Starting %s (%s)%s\n", e.Target, e.Kind, args)
	case event.ServerWaiting:
		p.printf("%s is still starting after %s (pulling the image or loading the model; startup_timeout bounds the wait)\n",
			e.Target, seconds(e.Elapsed))
	case event.ServerNote:
		p.printf("%s: %s\n", e.Target, untrusted.Line(e.Text))
	case event.ServerReady:
		switch {
		case e.Err != nil && p.endpoint:
			p.printf("%s cannot be used: %s\n", e.Target, untrusted.FirstLine(e.Err.Error(), maxStartErrorText))
		case e.Err != nil:
			p.printf("%s did not start after %s: %s\n", e.Target, seconds(e.Took), untrusted.FirstLine(e.Err.Error(), maxStartErrorText))
		case p.endpoint || e.URL == e.Target:
			p.printf("%s answers, model %s\n", e.Target, e.Model)
		default:
			p.printf("%s is up after %s at %s, model %s\n", e.Target, seconds(e.Took), e.URL, e.Model)
		}
	case event.ServerDiscovered:
		for _, m := range e.Missing {
			p.printf("%s lacks %s: %s\n", e.Target, untrusted.Line(m.Feature), untrusted.Line(m.Cost))
		}
	case event.ServerStopped:
		switch {
		case e.Err != nil:
			p.printf("%s: %v\n", e.Target, e.Err)
		case !p.endpoint: // an endpoint is not ours to stop
			p.printf("%s stopped after %s\n", e.Target, seconds(e.Took))
		}
	case event.RunStarted:
		p.t.reset(e)
		p.lastDraw, p.lastTen = time.Time{}, 0
		p.printf("[%d/%d] %s: %s\n", e.Index+1, e.Runs, e.Name, describeLoad(e))
		if p.live {
			p.draw()
		}
	case event.RequestDone:
		p.t.add(e.Record)
		p.tick()
	case event.RunFinished:
		head, figures := describeRun(e.Run)
		p.printf("[%d/%d] %s\n", e.Index+1, e.Runs, head)
		if figures != "" {
			p.printf("      %s\n", figures)
		}
		for _, a := range e.Run.Asserts {
			if !a.Passed {
				p.printf("      assert %q failed: %s\n", a.Name, describeAssert(a))
			}
		}
	case event.PlanFinished:
		p.clear()
	case event.ConfirmStarted:
		p.printf("\nllmgate: %d run(s) moved close to or past their band without a clear call; running them once more to confirm: %s\n",
			len(e.Runs), strings.Join(e.Runs, ", "))
	}
}

// tick redraws the bar or prints a plain line when it is time to.
func (p *text) tick() {
	now := p.now()
	if p.live {
		if now.Sub(p.lastDraw) >= barEvery || p.t.fraction() == 1 {
			p.lastDraw = now
			p.draw()
		}
		return
	}
	ten := -1
	if f := p.t.fraction(); f >= 0 {
		ten = int(f * 10)
	}
	if p.lastDraw.IsZero() {
		p.lastDraw = now // the clock starts at the first request
	}
	if now.Sub(p.lastDraw) >= lineEvery || ten > p.lastTen {
		p.lastDraw = now
		if ten > p.lastTen {
			p.lastTen = ten
		}
		p.printf("      %s\n", strings.Join(p.status(false), ", "))
	}
}

// draw redraws the live bar in place, dropping trailing figures rather
// than letting the line wrap.
func (p *text) draw() {
	line := "  "
	if f := p.t.fraction(); f >= 0 {
		n := int(f * barWidth)
		line += "[" + strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n) + "]"
	}
	for i, part := range p.status(true) {
		sep := "  "
		if i == 0 && line == "  " {
			sep = ""
		}
		if len(line)+len(sep)+len(part) > liveWidth {
			break
		}
		line += sep + part
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.drawn = true
}

// clear removes the live bar so the next line starts clean.
func (p *text) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *text) printf(format string, a ...any) {
	p.clear()
	fmt.Fprintf(p.w, format, a...)
}

// status is the state of the current run, most important figure first;
// short leaves out the word "requests" for the live bar.
func (p *text) status(short bool) []string {
	t := &p.t
	unit := " requests"
	if short {
		unit = ""
	}
	if t.run.Warmup > 0 && t.warm < t.run.Warmup {
		// Nothing is measured yet: rates and latencies would read as zeros.
		return []string{fmt.Sprintf("warming up %d/%d", t.warm, t.run.Warmup)}
	}
	var parts []string
	switch {
	case t.run.Requests > 0:
		parts = append(parts, fmt.Sprintf("%d/%d%s", t.finished(), t.run.Requests, unit))
	case t.run.Duration > 0:
		parts = append(parts, fmt.Sprintf("%d%s in %s/%s", t.finished(), unit, seconds(t.elapsed()), seconds(t.run.Duration)))
	default:
		parts = append(parts, fmt.Sprintf("%d%s", t.finished(), unit))
	}
	if t.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", t.failed))
	}
	parts = append(parts, fmt.Sprintf("%.1f req/s", t.rate()), fmt.Sprintf("%d in flight", t.inFlight()))
	if p50, ok := t.ttftP50(); ok { // none yet: no 0 ms
		parts = append(parts, "TTFT p50 "+results.Milliseconds.Format(p50))
	}
	return parts
}

// describeLoad says what a run is about to do.
func describeLoad(e event.RunStarted) string {
	var parts []string
	switch {
	case e.Requests > 0:
		parts = append(parts, words.Count(e.Requests, "request", "requests"))
	case e.Duration > 0:
		parts = append(parts, "for "+e.Duration.String())
	}
	if e.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("%d warmup", e.Warmup))
	}
	if e.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%g req/s", e.Rate))
	}
	if e.Concurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", e.Concurrency))
	}
	return strings.Join(parts, ", ")
}

// describeRun is the outcome of a run in two lines, each within 100
// columns for a clean run: what happened (status, requests, asserts, why
// it failed or is invalid), then its main figures ("" for a failed run).
func describeRun(r *results.Run) (head, figures string) {
	s := &r.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", r.Name, r.Status)
	if r.Status != results.StatusFailed {
		took := seconds(time.Duration(s.DurationSeconds * float64(time.Second)))
		empty := ""
		if n := s.Requests.EmptyAnswers; n > 0 {
			empty = fmt.Sprintf(" (%s, no first token)", words.Count(n, "empty answer", "empty answers"))
		}
		if s.Requests.Failed > 0 {
			fmt.Fprintf(&b, ", %d ok%s, %d failed in %s", s.Requests.Completed, empty, s.Requests.Failed, took)
		} else {
			fmt.Fprintf(&b, ", %s%s in %s", words.Count(s.Requests.Completed, "request", "requests"), empty, took)
		}
		figures = fmt.Sprintf("%.1f req/s, TTFT p50 %s p95 %s, TPOT p50 %s",
			s.Throughput.Requests, latency(s.TTFT, s.TTFT.P50), latency(s.TTFT, s.TTFT.P95), latency(s.TPOT, s.TPOT.P50))
	}
	if n := len(r.Asserts); n > 0 {
		passed := 0
		for _, a := range r.Asserts {
			if a.Passed {
				passed++
			}
		}
		fmt.Fprintf(&b, ", asserts %d/%d passed", passed, n)
	}
	if r.Error != "" {
		fmt.Fprintf(&b, " (%s)", untrusted.FirstLine(r.Error.Raw(), maxErrorText))
	}
	if len(r.InvalidReasons) > 0 {
		fmt.Fprintf(&b, " (invalid: %s)", untrusted.Line(strings.Join(r.InvalidReasons, "; ")))
	}
	if d := r.Dataset; d != nil {
		switch {
		case d.Dropped > 0:
			fmt.Fprintf(&b, " (%s left out %d of %d entries checked)", datasetFilters(d), d.Dropped, d.Checked)
		case d.Unfit > 0:
			fmt.Fprintf(&b, " (%d of %d dataset entries cannot fit the model's context of %d tokens and were refused; dataset_filter = \"context\" leaves them out)", d.Unfit, d.Checked, d.Context)
		}
	}
	return b.String(), figures
}

// describeAssert is an assert's message, which names the condition and the
// values it saw, or its condition when it has none.
func describeAssert(a results.AssertResult) string {
	if a.Message != "" {
		return a.Message.Line()
	}
	return a.Condition.Line()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// datasetFilters names what left a dataset's entries out: its
// dataset_filter and its length bounds.
func datasetFilters(d *results.DatasetFit) string {
	var parts []string
	if d.Filter != "" {
		parts = append(parts, "dataset_filter "+d.Filter)
	}
	if d.MaxPromptTokens > 0 {
		parts = append(parts, fmt.Sprintf("max_prompt_tokens %d", d.MaxPromptTokens))
	}
	if d.MaxTotalTokens > 0 {
		parts = append(parts, fmt.Sprintf("max_total_tokens %d", d.MaxTotalTokens))
	}
	return strings.Join(parts, " and ")
}

// latency is v, a statistic of st, in ms; "-" when st has no sample (every
// answer was empty, so none had a first token), never a 0 ms.
func latency(st results.Stats, v float64) string {
	if st.N == 0 {
		return "-"
	}
	return results.Milliseconds.Format(v)
}
