package load

import (
	"fmt"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// streamTimer turns the timed chunks of one streamed response into the timing
// fields of a results.Record, as docs/running.md ("What is measured, and
// how") defines them for users:
//   - TTFT: the first chunk that carries generated output minus send. A
//     chunk carries output when its first choice has non-empty text or
//     content, reasoning content or tool-call arguments, or when continuous
//     usage says it added a token. A role chunk or an empty-content chunk
//     sent before the first token is not the first token (vLLM times the
//     first chunk with non-empty choices; it sends its role chunk with the
//     first token, so both rules agree against vLLM);
//   - E2EL: last chunk with non-empty choices minus send, as vLLM;
//   - ITL: from the first output chunk on, the gap before each later output
//     chunk, split evenly across the tokens it carries when continuous usage
//     stats say it carries several; a chunk that adds no token or no output
//     passes its gap on to the next one; tokens that come with the first
//     chunk have no gap and add no ITL. Usage on a chunk is taken for
//     continuous usage stats only once its completion count has counted up
//     (vLLM's do from the first token); a count that never moves (Ollama
//     puts zeros on every chunk) or goes back is not, and each output chunk
//     is then one token's gap;
//   - TTFO (time to first output token, AIPerf's name): the first chunk
//     that carries answer output (text or content, or tool-call
//     arguments: anything but reasoning) minus send; the same as TTFT for
//     a model that does not reason;
//   - token counts: the last usage object seen, never counted from chunks;
//     the number of output chunks is kept to check usage against. The
//     reasoning tokens are usage's completion_tokens_details.reasoning_tokens
//     where the server reports it, else counted from the stream: the tokens
//     of the chunks that carried reasoning and no answer (by continuous
//     usage where it counts, else one a chunk): a lower bound when one
//     chunk carries the end of the reasoning and the start of the answer,
//     as it does when the client falls behind the server.
type streamTimer struct {
	sent         time.Time
	first, last  time.Time
	outputs      int       // chunks with generated output seen
	usage        bool      // any usage seen
	counting     bool      // per-chunk usage has counted up: it is continuous usage
	finished     bool      // a choice said the answer ended (finish_reason)
	finishReason string    // the first finish_reason, bounded (maxFinishReason)
	ended        time.Time // the last chunk with choices, for an answer with no output
	prompt       int
	completion   int
	prevTokens   int           // cumulative completion tokens at the last content chunk
	pending      time.Duration // gap carried from content chunks with no new token
	itl          []float64
	itlRoom      int    // the most ITL samples the answer can have (see overflowed)
	overflowed   string // why the stream sent more than a request may keep
	keepText     bool
	text         []byte

	answered        time.Time // the first chunk with answer output
	reasoningChunks int       // tokens of chunks with reasoning and no answer
	reasoningUsage  int       // usage's reasoning tokens, when reported
	reasoningIn     bool      // usage reported them

	tools toolCalls // the answer's tool calls, joined from their deltas
}

// maxAnswerText bounds the answer text kept for a conversation's history
// or a structured answer's validation.
const maxAnswerText = 4 << 20

func (t *streamTimer) reset(sent time.Time, expectTokens int, keepText bool) {
	t.sent = sent
	t.first, t.last = time.Time{}, time.Time{}
	t.outputs, t.usage, t.prompt, t.completion, t.prevTokens, t.pending = 0, false, 0, 0, 0, 0
	t.counting, t.finished, t.ended, t.overflowed = false, false, time.Time{}, ""
	t.finishReason = ""
	if expectTokens > 1 {
		t.itl = make([]float64, 0, expectTokens-1)
	} else {
		t.itl = nil
	}
	// an answer of max_tokens tokens has fewer gaps; the slack is for
	// servers that split a token over chunks, the bound for a hostile one
	// whose usage counts would fill memory
	t.itlRoom = 4*max(expectTokens, 1<<10) + 64
	t.keepText = keepText
	t.text = t.text[:0]
	t.answered, t.reasoningChunks, t.reasoningUsage, t.reasoningIn = time.Time{}, 0, 0, false
	t.tools.reset()
}

// observe accounts for one chunk that arrived at at.
func (t *streamTimer) observe(at time.Time, c *chunk) {
	if c.usage {
		t.usage = true
		t.prompt, t.completion = c.promptTokens, c.completionTokens
		t.reasoningUsage, t.reasoningIn = c.reasoningTokens, c.hasReasoningTokens
	}
	if !c.choices {
		return
	}
	if c.answer && t.answered.IsZero() {
		t.answered = at
	}
	t.ended = at
	if c.finished && !t.finished {
		t.finishReason = untrusted.Short(string(c.finishReason), results.MaxFinishReason-len("…"))
	}
	t.finished = t.finished || c.finished
	if len(c.toolCalls) > 0 {
		if t.tools.add(at, c.toolCalls); t.tools.overflow != "" {
			t.overflowed = t.tools.overflow
			return
		}
	}
	if t.keepText && c.text != nil {
		if len(t.text)+len(c.text) > maxAnswerText {
			t.overflowed = fmt.Sprintf("the answer's text passed %d MiB", maxAnswerText>>20)
			return
		}
		t.text = c.appendText(t.text)
	}
	counted := c.usage && c.completionTokens > t.prevTokens // usage counts up here
	output := c.output || counted
	if t.outputs == 0 {
		if !output {
			return // a role chunk or an empty chunk before the first token
		}
		t.outputs = 1
		t.first, t.last = at, at
		k := 1
		if counted {
			t.prevTokens, t.counting = c.completionTokens, true
			k = c.completionTokens
		}
		t.countReasoning(c, k)
		return
	}
	gap := at.Sub(t.last) + t.pending
	t.last = at
	k := 0
	if output {
		t.outputs++
		k = 1
	}
	switch {
	case counted:
		k = c.completionTokens - t.prevTokens
		t.prevTokens, t.counting = c.completionTokens, true
	case c.usage && t.counting && c.completionTokens == t.prevTokens:
		k = 0 // continuous usage says this chunk added no token
	case c.usage && t.counting:
		t.counting = false // the count went back: no longer trusted
	}
	t.countReasoning(c, k)
	if k <= 0 {
		t.pending = gap
		return
	}
	t.pending = 0
	each := float64(gap) / float64(time.Millisecond) / float64(k)
	if room := t.itlRoom - len(t.itl); k > room {
		t.overflowed = fmt.Sprintf("the stream counted more than %d gaps between tokens, far past its max_tokens", t.itlRoom)
		k = room
	}
	for ; k > 0; k-- {
		t.itl = append(t.itl, each)
	}
}

// countReasoning counts the k tokens of a chunk that carried reasoning and
// no answer as reasoning tokens (a chunk with both counts for the answer).
func (t *streamTimer) countReasoning(c *chunk, k int) {
	if c.reasoning && !c.answer && k > 0 {
		t.reasoningChunks += k
	}
}

// reasoningTokens is the answer's reasoning tokens and where they came
// from: usage's count where the server reported one, else the stream's
// count, else none.
func (t *streamTimer) reasoningTokens() (int, results.ReasoningSource) {
	switch {
	case t.reasoningIn:
		return t.reasoningUsage, results.ReasoningFromUsage
	case t.reasoningChunks > 0:
		return t.reasoningChunks, results.ReasoningFromStream
	}
	return 0, ""
}

// overflow says why the stream sent more than a request may keep, or "".
func (t *streamTimer) overflow() string { return t.overflowed }

// emptyAnswer reports whether the stream ended its answer (a choice had a
// finish_reason) before any generated output: a stop sequence matched at
// the first token. Such an answer is complete but has no first token.
func (t *streamTimer) emptyAnswer() bool { return t.outputs == 0 && t.finished }

// fill writes the timing and token fields into rec. An empty answer has no
// TTFT; its E2EL is its last chunk with choices.
func (t *streamTimer) fill(rec *results.Record) {
	switch {
	case t.outputs > 0:
		rec.TTFT = t.first.Sub(t.sent)
		rec.E2EL = t.last.Sub(t.sent)
		if !t.answered.IsZero() {
			rec.TTFO = t.answered.Sub(t.sent)
		}
	case t.emptyAnswer():
		rec.E2EL = t.ended.Sub(t.sent)
	}
	rec.ITL = t.itl
	rec.FinishReason = t.finishReason
	rec.InputTokens = t.prompt
	rec.OutputTokens = t.completion
	rec.ReasoningTokens, rec.Reasoning = t.reasoningTokens()
}

// usageProblem says how the stream's final usage contradicts the chunks it
// streamed, or "" when it does not: every chunk that carried generated
// output carried at least one token, so fewer completion tokens than output
// chunks cannot be true (and would turn into a wrong TPOT).
func (t *streamTimer) usageProblem() string {
	if t.usage && t.completion < t.outputs {
		return fmt.Sprintf("usage contradicts the stream: completion_tokens %d after %d chunks of generated output", t.completion, t.outputs)
	}
	if t.reasoningIn && (t.reasoningUsage < 0 || t.reasoningUsage > t.completion) {
		return fmt.Sprintf("usage contradicts itself: reasoning_tokens %d of completion_tokens %d", t.reasoningUsage, t.completion)
	}
	return ""
}
