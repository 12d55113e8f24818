package results

import "time"

// Record is one request as the load generator saw it. Offsets are measured
// on the monotonic clock from the start of the run.
type Record struct {
	// Seq is the request's index in send order, warmup included.
	Seq int `json:"seq"`
	// Warmup marks requests excluded from the metrics.
	Warmup bool `json:"warmup,omitempty"`
	// Index is the request's index within its phase (warmup or measured):
	// with the run's seed and name it keys the prompt.
	Index int `json:"index,omitempty"`
	// Scheduled is when the arrival process planned the send.
	Scheduled time.Duration `json:"scheduled_ns"`
	// Think is how long the user held the request for its conversation's
	// think time before Scheduled (a closed loop; 0 otherwise): the user
	// was busy thinking, not idle.
	Think time.Duration `json:"think_ns,omitempty"`
	// Sent is when the request was actually written.
	Sent time.Duration `json:"sent_ns"`
	// TTFT is the time from Sent to the first chunk with non-empty choices;
	// 0 when none came (HasTTFT is false), which is no time.
	TTFT time.Duration `json:"ttft_ns"`
	// TTFO (time to first output token) is the time from Sent to the first
	// chunk that carried answer output, not reasoning: TTFT for a model that
	// does not reason; 0 when no answer came (the stream ended in its
	// reasoning).
	TTFO time.Duration `json:"ttfo_ns,omitempty"`
	// E2EL is the time from Sent to the last chunk with choices.
	E2EL time.Duration `json:"e2el_ns"`
	// Finished is when the response ended (stream closed, error or timeout);
	// 0 in files written before it existed.
	Finished time.Duration `json:"finished_ns,omitempty"`
	// ITL holds the gaps between successive content chunks, in milliseconds,
	// already split evenly across the tokens of multi-token chunks.
	ITL []float64 `json:"itl_ms,omitempty"`
	// RequestedInputTokens and RequestedOutputTokens are the lengths the
	// workload asked for; 0 when it asked for none (a conversation's grown
	// history, a dataset prompt, an answer allowed to stop early).
	RequestedInputTokens  int `json:"requested_input_tokens,omitempty"`
	RequestedOutputTokens int `json:"requested_output_tokens,omitempty"`
	// InputTokens and OutputTokens come from the server's usage.
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// ReasoningTokens are the output tokens that were reasoning, from
	// Reasoning's source; 0 when Reasoning is "".
	ReasoningTokens int             `json:"reasoning_tokens,omitempty"`
	Reasoning       ReasoningSource `json:"reasoning,omitempty"`
	// Error is empty on success, else the reason (HTTP status and body excerpt, disconnect, timeout).
	Error string `json:"error,omitempty"`
	// ErrorKind classifies Error; "" for a request that did not fail.
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// HTTPStatus is the status of an ErrorHTTP answer, 0 for other
	// requests; Unreached is set on an ErrorDisconnect failure whose
	// connection could not be made (the dial failed). The load generator
	// decides by them, not by Error's words; they are not written.
	HTTPStatus int  `json:"-"`
	Unreached  bool `json:"-"`
	// Turn is the request's turn in its conversation (0 for the first, and
	// for workloads without conversations).
	Turn int `json:"turn,omitempty"`
	// Session numbers the request's conversation (0 for the first, and for
	// workloads without conversations).
	Session int `json:"session,omitempty"`
	// TraceRow is the line of the trace row a trace workload's request
	// replays (from 1); 0 for other workloads.
	TraceRow int `json:"trace_row,omitempty"`
	// Member is the mix member the request drew (a mix block's workload
	// label); "" for a run without a mix.
	Member string `json:"member,omitempty"`
	// Stage is the stage of a staged load the request was sent in (from
	// 1); 0 for a run without stages, and for warmup requests.
	Stage int `json:"stage,omitempty"`
	// ConnIdle is, for a request lost before any answer came, how long the
	// connection it was written on had been idle before it; 0 for a fresh
	// connection, and for every other request. A server closes connections
	// idle past its keep-alive timeout.
	ConnIdle time.Duration `json:"conn_idle_ns,omitempty"`
	// Reconnects counts the connections set aside before the request was
	// written, unwritten, because the server may have closed them (idle too
	// long, or closed): the request went on a fresh connection, whose
	// set-up is in the schedule lag (Sent - Scheduled), not in TTFT.
	Reconnects int `json:"reconnects,omitempty"`
	// EmptyAnswer marks a completed request whose answer ended (a
	// finish_reason) before any generated text: a stop sequence matched at
	// its first token. It has no TTFT (and no TPOT or ITL); its E2EL is its
	// last chunk.
	EmptyAnswer bool `json:"empty_answer,omitempty"`
	// StructuredValid is set for structured-output workloads: whether the answer validated.
	StructuredValid *bool `json:"structured_valid,omitempty"`
	// ToolCallValid is set for a workload that offered tools: whether every
	// tool call of the answer was valid (true when it made none; ToolCalls
	// counts them). ToolCallTime is the time from Sent to the chunk with
	// the last piece of the answer's tool calls' arguments: when every
	// call is complete; 0 without a tool call.
	ToolCallValid *bool         `json:"tool_call_valid,omitempty"`
	ToolCalls     int           `json:"tool_calls,omitempty"`
	ToolCallTime  time.Duration `json:"tool_call_ns,omitempty"`
	// FinishReason is the finish_reason the server ended the answer with
	// ("stop"; "length": cut off at max_tokens), at most MaxFinishReason
	// bytes; "" when the stream gave none.
	FinishReason string `json:"finish_reason,omitempty"`
}

// MaxFinishReason bounds a kept finish_reason, the server's text ("stop",
// "length", "tool_calls", "abort"), in bytes.
const MaxFinishReason = 32

// OK reports whether the request completed without error.
func (r *Record) OK() bool { return r.Error == "" }

// HasTTFT reports whether the request has a TTFT: it completed with a
// first token. A failed request and an empty answer have none, and their
// TTFT of 0 is no sample.
func (r *Record) HasTTFT() bool { return r.OK() && !r.EmptyAnswer }

// ReasoningSource says where a request's reasoning-token count came from.
type ReasoningSource string

const (
	// ReasoningFromUsage is the server's usage:
	// completion_tokens_details.reasoning_tokens.
	ReasoningFromUsage ReasoningSource = "usage"
	// ReasoningFromStream is counted from the stream's chunks that carried
	// reasoning (delta.reasoning_content or delta.reasoning) and no answer.
	ReasoningFromStream ReasoningSource = "stream"
)

// AnswerTokens are the output tokens that were not reasoning.
func (r *Record) AnswerTokens() int { return max(r.OutputTokens-r.ReasoningTokens, 0) }

// ErrorKind classifies why a request failed. It is written to the results
// file as its string.
type ErrorKind string

// Error kinds of Record.ErrorKind and RequestFailure.Kind.
const (
	ErrorHTTP       ErrorKind = "http"       // the server answered with a status other than 200
	ErrorDisconnect ErrorKind = "disconnect" // the connection was lost (or never made)
	ErrorTimeout    ErrorKind = "timeout"    // the request ran past its timeout
	ErrorProtocol   ErrorKind = "protocol"   // the answer broke the protocol (not SSE, not JSON, ...)
	ErrorCanceled   ErrorKind = "canceled"   // the run was stopped while the request was in flight
	// ErrorTooLarge: the stream sent more than a request may buffer (an
	// event past the event limit, answer text past the answer limit, more
	// tokens than max_tokens allows).
	ErrorTooLarge ErrorKind = "too_large"
	// ErrorImported: a failure read from another tool's file (llmgate
	// import vllm-bench), which does not classify it.
	ErrorImported ErrorKind = "imported"
)

// Valid reports whether k is one of the ErrorKind constants.
func (k ErrorKind) Valid() bool {
	switch k {
	case ErrorHTTP, ErrorDisconnect, ErrorTimeout, ErrorProtocol, ErrorCanceled, ErrorTooLarge, ErrorImported:
		return true
	}
	return false
}
