package results

import (
	"fmt"
	"slices"
)

// WhyNotMeasured says why a run with summary s has no value of m, in words
// a reader can act on, or "" when it has one. It is the one explanation
// asserts, comparisons and reports give for a metric that is missing.
func (m Metric) WhyNotMeasured(s *Summary) string {
	if s == nil {
		return "the run has no summary"
	}
	if _, ok := m.Value(s); ok {
		return ""
	}
	if !m.Part.IsZero() {
		return m.whyPartNotMeasured(s)
	}
	fam := m.Family
	if fam == LengthBucket {
		return "no request of the run completed in the bucket"
	}
	if fam == FirstTurn || fam == LaterTurns {
		if s.Turns == nil {
			return "the run has no conversations"
		}
		return "no request of the slice completed"
	}
	switch fam {
	case "server":
		if s.Server != nil && m.specDecode {
			return "the server's /metrics has no speculative-decoding counters (vLLM's vllm:spec_decode_num_drafts, ..._num_draft_tokens, ..._num_accepted_tokens: it runs without --speculative-config), no draft was made in the measured phase, or the draft has no such position"
		}
		if s.Server != nil && m.prefixCache {
			return "the server's /metrics has no prefix-cache counters (vLLM's vllm:prefix_cache_queries and _hits, SGLang's sglang:prompt_tokens and cached_tokens; llama.cpp's server counts none), or they went back in the measured phase (the server restarted)"
		}
		if s.Server != nil && m.split {
			return "the server's /metrics has no histogram of it (vLLM's vllm:request_queue_time_seconds, ..._prefill_, ..._decode_, ..._inference_time_seconds), or no request was observed in the measured phase"
		}
		return "the server exposes no Prometheus /metrics endpoint (or it could not be read)"
	case "gpu":
		return "GPU metrics need a server target with gpus whose container has nvidia-smi, or a dcgm_exporter in the target block"
	case ToolCall:
		if s.ToolCalls != nil {
			return "no completed request answered with a tool call"
		}
		return "the workload offers no tools"
	case "structured":
		return "the workload asks for no structured output (kind \"structured\")"
	case "goodput":
		return "goodput was not measured (a vllm bench serve result saved without --goodput)"
	case CapacityFamily:
		return "the run is not a capacity search that varies " + m.Name[len(CapacityFamily)+1:]
	case ReasoningTokens, AnswerTokens:
		return "no completed request reasoned: the server streamed no reasoning (delta.reasoning_content or delta.reasoning) and reported no usage.completion_tokens_details.reasoning_tokens"
	}
	if !fam.Latency() {
		return "the run produced no value for it"
	}
	if s.Requests.Completed == 0 {
		return "no request completed"
	}
	empty := ""
	if n := s.Requests.EmptyAnswers; n > 0 {
		empty = fmt.Sprintf(" (%d answers were empty: a stop sequence at the first token)", n)
	}
	switch fam {
	case TTFT:
		return "no completed request had a first token" + empty
	case TTFO:
		if r := s.Reasoning; r != nil && r.Unanswered > 0 {
			return fmt.Sprintf("no completed request had an answer token: %d answers ended in their reasoning (raise max_tokens)", r.Unanswered) + empty
		}
		if s.Reasoning == nil && s.TTFT.N > 0 {
			return "the run has no TTFO: its results were written before llmgate measured it, or imported from a tool that does not"
		}
		return "no completed request had an answer token" + empty
	case TPOT:
		return "no completed request had more than one output token" + empty
	case ITL:
		return "every completed answer came in one chunk of output: no gap between tokens to measure" + empty
	}
	return "no request completed"
}

// AppliesTo reports whether m is a metric of run at all: a conversation
// turn's metrics apply only to runs with conversations, a length bucket's
// only to runs that have the bucket, structured.valid_rate only to
// structured output and a capacity figure only to a capacity search of its
// knob. A metric that applies but has no value was not measured (see
// WhyNotMeasured); one that does not apply is simply not the run's.
func (m Metric) AppliesTo(run *Run) bool {
	if run == nil {
		return false
	}
	s := &run.Summary
	switch {
	case !m.Part.IsZero():
		return s.Part(m.Part) != nil || run.Load.HasPart(m.Part)
	case m.Family == FirstTurn || m.Family == LaterTurns:
		if run.Load != nil {
			return run.Load.Workload == "conversation"
		}
		return s.Turns != nil
	case m.Family == LengthBucket:
		for _, b := range s.LengthBuckets {
			if b.Name == m.Bucket {
				return true
			}
		}
		return run.Load != nil && slices.Contains(run.Load.LengthBucketNames, m.Bucket)
	case m.Family == "structured":
		if run.Load != nil {
			return run.Load.Workload == "structured"
		}
		return s.Structured != nil
	case m.Family == CapacityFamily:
		_, ok := m.Value(s)
		return ok || (run.Capacity != nil && CapacityFamily+"."+Family(run.Capacity.Vary) == Family(m.Name))
	}
	return true
}
