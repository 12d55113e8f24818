package progress

import (
	"slices"
	"time"

	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
)

// recentWindow is how many recent completions the in-flight estimate
// looks at: enough for 2048 requests in flight.
const recentWindow = 2048

// runStats keeps the running figures of the current run for the renderers.
// Its clock is the records' own offsets, so figures do not depend on when
// the renderer happens to look.
type runStats struct {
	run          event.RunStarted
	done, failed int // measured requests
	warm         int // warmup requests
	first, last  time.Duration
	started      bool
	ttft         []float64 // ms, measured with a first token (Record.HasTTFT)
	recent       [recentWindow]span
	n            int // completions seen, for the ring
}

// span is one completed request on the run's clock.
type span struct{ sent, end time.Duration }

func (t *runStats) reset(e event.RunStarted) { *t = runStats{run: e, ttft: t.ttft[:0]} }

func (t *runStats) add(rec results.Record) {
	if rec.Warmup {
		t.warm++
		return
	}
	end := rec.Finished
	if end == 0 {
		end = rec.Sent + rec.E2EL
	}
	if rec.OK() {
		t.done++
		if rec.HasTTFT() { // an empty answer has none
			t.ttft = append(t.ttft, float64(rec.TTFT)/float64(time.Millisecond))
		}
	} else {
		t.failed++
		if end < rec.Sent {
			end = rec.Sent
		}
	}
	if !t.started || rec.Sent < t.first {
		t.first = rec.Sent
	}
	t.started = true
	if end > t.last {
		t.last = end
	}
	t.recent[t.n%recentWindow] = span{rec.Sent, end}
	t.n++
}

// finished counts measured requests, failed included.
func (t *runStats) finished() int { return t.done + t.failed }

// elapsed is the measured window so far.
func (t *runStats) elapsed() time.Duration { return t.last - t.first }

// rate is measured completions per second so far.
func (t *runStats) rate() float64 {
	if el := t.elapsed().Seconds(); el > 0 {
		return float64(t.finished()) / el
	}
	return 0
}

// inFlight estimates the requests in flight from finished ones: how many
// of the recent requests were running at the moment one longest recent
// latency ago, the latest moment all of them have surely finished.
func (t *runStats) inFlight() int {
	k := min(t.n, recentWindow)
	if k == 0 {
		return 0
	}
	var hi, longest time.Duration
	for _, s := range t.recent[:k] {
		hi = max(hi, s.end)
		longest = max(longest, s.end-s.sent)
	}
	at := hi - longest
	n := 0
	for _, s := range t.recent[:k] {
		if s.sent <= at && at < s.end {
			n++
		}
	}
	return n
}

// ttftP50 is the median TTFT so far, in ms; false when no request has
// had one yet.
func (t *runStats) ttftP50() (float64, bool) {
	if len(t.ttft) == 0 {
		return 0, false
	}
	s := slices.Clone(t.ttft)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m], true
	}
	return (s[m-1] + s[m]) / 2, true
}

// fraction is how far the run is, from 0 to 1, or -1 when unknown.
func (t *runStats) fraction() float64 {
	switch {
	case t.run.Requests > 0:
		return min(1, float64(t.finished())/float64(t.run.Requests))
	case t.run.Duration > 0:
		return min(1, t.elapsed().Seconds()/t.run.Duration.Seconds())
	}
	return -1
}
