package load

import (
	"time"

	"github.com/llmgate/llmgate/results"
)

// tracker turns the timed chunks of one streamed response into the timing
// fields of a results.Record, the way DESIGN.md defines them:
//   - TTFT: first chunk with non-empty choices minus send;
//   - E2EL: last chunk with non-empty choices minus send;
//   - ITL: the gap before each later content chunk, split evenly across the
//     tokens it carries when continuous usage stats say it carries several
//     (so the ITLs add up to E2EL-TTFT); a content chunk that adds no token
//     passes its gap on to the next one; tokens that come with the first
//     chunk have no gap and add no ITL;
//   - token counts: the last usage object seen, never counted from chunks.
type tracker struct {
	sent        time.Time
	first, last time.Time
	content     int  // content chunks seen
	usage       bool // any usage seen
	prompt      int
	completion  int
	prevTokens  int           // cumulative completion tokens at the last content chunk
	pending     time.Duration // gap carried from content chunks with no new token
	itl         []float64
	keepText    bool
	text        []byte
}

func (t *tracker) reset(sent time.Time, expectTokens int, keepText bool) {
	t.sent = sent
	t.first, t.last = time.Time{}, time.Time{}
	t.content, t.usage, t.prompt, t.completion, t.prevTokens, t.pending = 0, false, 0, 0, 0, 0
	if expectTokens > 1 {
		t.itl = make([]float64, 0, expectTokens-1)
	} else {
		t.itl = nil
	}
	t.keepText = keepText
	t.text = t.text[:0]
}

// observe accounts for one chunk that arrived at at.
func (t *tracker) observe(at time.Time, c *chunk) {
	if c.usage {
		t.usage = true
		t.prompt, t.completion = c.promptTokens, c.completionTokens
	}
	if !c.choices {
		return
	}
	if t.keepText && c.text != nil {
		t.text = c.appendText(t.text)
	}
	t.content++
	if t.content == 1 {
		t.first, t.last = at, at
		if c.usage {
			t.prevTokens = c.completionTokens
		}
		return
	}
	gap := at.Sub(t.last) + t.pending
	t.last = at
	k := 1
	if c.usage {
		k = c.completionTokens - t.prevTokens
		t.prevTokens = c.completionTokens
	}
	if k <= 0 {
		t.pending = gap
		return
	}
	t.pending = 0
	each := float64(gap) / float64(time.Millisecond) / float64(k)
	for ; k > 0; k-- {
		t.itl = append(t.itl, each)
	}
}

// fill writes the timing and token fields into rec.
func (t *tracker) fill(rec *results.Record) {
	if t.content > 0 {
		rec.TTFT = t.first.Sub(t.sent)
		rec.E2EL = t.last.Sub(t.sent)
	}
	rec.ITL = t.itl
	rec.InputTokens = t.prompt
	rec.OutputTokens = t.completion
}
