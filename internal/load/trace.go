package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

// Streams of rng for the trace workload: a hash id's block, and the part
// of a prompt after its blocks.
const (
	streamTraceBlock = 7
	streamTraceTail  = 8
)

// traceWorkload replays the rows of a trace: request n of the run (warmup
// included) is row n of the run's window, sent at the row's offset in the
// trace (scaled) and asking for exactly its lengths. A row's prompt is its
// blocks, each block's content drawn from its hash id (so rows that share
// an id share that block, and prefix caching sees the trace's reuse), then
// tokens of its own up to its input length; a row of llmgate's own format
// that carries a prompt or messages sends them as written.
type traceWorkload struct {
	key     promptKey
	b       bodyMaker
	rows    []trace.Row
	offsets []time.Duration
	block   int
	chat    bool
	text    bool // text prompts on /v1/completions
	lens    lengths
}

func newTraceWorkload(cfg Config, key promptKey, b bodyMaker) (*traceWorkload, error) {
	w := cfg.Workload
	t := cfg.Trace
	if t == nil {
		if w.TracePath == "" {
			return nil, fmt.Errorf("trace workload: no trace file given")
		}
		var err error
		if t, err = trace.ReadFile(w.TracePath, w.TraceFormat); err != nil {
			return nil, fmt.Errorf("trace workload: %w", err)
		}
	}
	win := traceWindow(cfg.Load)
	rows := win.Rows(t)
	if len(rows) == 0 {
		return nil, fmt.Errorf("trace workload: the trace has no rows from %s on", w.TraceStart)
	}
	block := w.BlockSize
	if block <= 0 {
		block = trace.DefaultBlockSize
	}
	return &traceWorkload{key: key, b: b, rows: rows, offsets: win.Offsets(rows), block: block, chat: w.Chat, text: w.TextPrompts}, nil
}

// traceWindow is the part of the trace a load replays.
func traceWindow(c runspec.Load) trace.Window {
	w := c.Workload
	return trace.Window{Start: w.TraceStart, Skip: w.TraceSkip, Warmup: c.Warmup, Requests: c.Requests, Duration: c.Duration, TimeScale: w.TimeScale}
}

func (tw *traceWorkload) next(s slot) *request {
	row := &tw.rows[min(s.seq, len(tw.rows)-1)] // the pacer stops at the last row
	var req *request
	switch {
	case len(row.Messages) > 0:
		msgs := make([]message, len(row.Messages))
		for i, m := range row.Messages {
			msgs[i] = message{Role: m.Role, Content: m.Content}
		}
		req = tw.b.chat(msgs, row.Output, nil)
	case row.Prompt != "" && tw.chat:
		req = tw.b.chat([]message{{Role: "user", Content: row.Prompt}}, row.Output, nil)
	case row.Prompt != "":
		req = tw.b.completion(row.Prompt, row.Output)
	case tw.chat:
		req = tw.b.chat([]message{{Role: "user", Content: tw.words(row)}}, row.Output, nil)
		req.wantIn = row.Input
	case tw.text:
		req = tw.b.completion(tw.words(row), row.Output)
		req.wantIn = row.Input
	default:
		req = tw.b.completion(tw.tokens(row), row.Output)
		req.wantIn = row.Input
	}
	req.traceRow = row.Line
	return req
}

// blockSpan is how many of a row's tokens its block j holds (0 past the
// prompt's end).
func (tw *traceWorkload) blockSpan(row *trace.Row, j int) int {
	return max(0, min(tw.block, row.Input-j*tw.block))
}

// tokens is a row's prompt as token ids: its blocks' then its own.
func (tw *traceWorkload) tokens(row *trace.Row) []int {
	ids := make([]int, 0, row.Input)
	for j, h := range row.Hashes {
		n := tw.blockSpan(row, j)
		if n == 0 {
			break
		}
		ids = append(ids, tokenIDs(tw.blockRNG(h), n)...)
	}
	if rest := row.Input - len(ids); rest > 0 {
		ids = append(ids, tokenIDs(tw.tailRNG(row), rest)...)
	}
	return ids
}

// words is a row's prompt as text of about its length on the server's
// tokenizer (as calibrated): its blocks' words, then its own, the frame
// (chat template) taken from its own part.
func (tw *traceWorkload) words(row *trace.Row) string {
	text, covered := "", 0
	for j, h := range row.Hashes {
		n := tw.blockSpan(row, j)
		if n == 0 {
			break
		}
		text = joinWords(text, tw.lens.text(tw.blockRNG(h), n))
		covered += n
	}
	if covered == 0 {
		return tw.lens.prompt(tw.tailRNG(row), row.Input)
	}
	if rest := row.Input - covered - int(math.Round(tw.lens.overhead)); rest > 0 {
		text = joinWords(text, tw.lens.text(tw.tailRNG(row), rest))
	}
	return strings.TrimPrefix(text, " ")
}

// blockRNG draws the content of the block with hash id h: the same for
// every row that has h, in this run and in its baseline.
func (tw *traceWorkload) blockRNG(h int64) *rand.Rand {
	return rng(tw.key, streamTraceBlock, uint64(h))
}

// tailRNG draws the part of a row's prompt after its blocks, its own.
func (tw *traceWorkload) tailRNG(row *trace.Row) *rand.Rand {
	return rng(tw.key, streamTraceTail, uint64(row.Line))
}

// poolSize is how many connections to open before the clock starts for
// an open loop without a cap: the requests due in the first two seconds,
// as for a rate, at least one and at most 512.
func (tw *traceWorkload) poolSize() int {
	n := 0
	for n < len(tw.offsets) && tw.offsets[n] < 2*time.Second {
		n++
	}
	return min(max(n, 1), 512)
}

// pacer sends row n at its offset.
func (tw *traceWorkload) pacer() Pacer { return tracePacer(tw.offsets) }

func (tw *traceWorkload) calibration() *calibrationTarget {
	if !tw.chat && !tw.text {
		return nil
	}
	return &calibrationTarget{chat: tw.chat, lens: &tw.lens}
}

func (tw *traceWorkload) useText() bool {
	if tw.chat {
		return false
	}
	tw.text = true
	return true
}

// tracePacer is a trace's schedule: request n is due at offset n, and
// there is none after the last.
type tracePacer []time.Duration

var _ Pacer = tracePacer(nil)

// Pace implements Pacer.
func (p tracePacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return paceFrom(p, elapsed, hits)
}

func (p tracePacer) due(hits uint64) (time.Duration, bool) {
	if hits >= uint64(len(p)) {
		return 0, false
	}
	return p[hits], true
}
