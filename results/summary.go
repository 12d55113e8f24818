package results

// Summary is the metric set of one run. Latencies are in milliseconds and
// rates per second; definitions follow `vllm bench serve`.
type Summary struct {
	TTFT Stats `json:"ttft"`
	// TTFO is the time to the first output token that is not reasoning
	// (AIPerf's "time to first output token"); for a model that does not
	// reason it is TTFT. Zero in files from before it was measured.
	TTFO Stats `json:"ttfo,omitzero"`
	TPOT Stats `json:"tpot"`
	ITL  Stats `json:"itl"`
	E2EL Stats `json:"e2el"`

	Throughput Throughput `json:"throughput"`
	Goodput    Goodput    `json:"goodput"`
	Requests   Requests   `json:"requests"`
	ErrorRate  float64    `json:"error_rate"`

	// Server is nil when the server exposes no /metrics.
	Server *ServerMetrics `json:"server,omitempty"`
	// GPU is nil unless the server's GPUs were sampled (nvidia-smi).
	GPU *GPUMetrics `json:"gpu,omitempty"`
	// Reasoning is nil unless some completed request reasoned (the server
	// streamed reasoning or reported reasoning tokens).
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Structured is nil unless the workload asked for structured output.
	Structured *Structured `json:"structured,omitempty"`
	// ToolCalls is nil unless the workload offered tools.
	ToolCalls *ToolCalls `json:"tool_calls,omitempty"`
	Client    Client     `json:"client"`
	// Turns compares first and later conversation turns; nil for runs
	// without conversations.
	Turns *Turns `json:"turns,omitempty"`
	// LengthBuckets summarises the requests by input length, one slice per
	// bucket of the workload's length_buckets; nil when it declares none.
	LengthBuckets []Slice `json:"length_buckets,omitempty"`
	// Parts summarise the requests of each mix member and of each stage
	// (Part); nil for a run with neither, and inside a part.
	Parts []Part `json:"parts,omitempty"`
	// Startup is how long the server this run drove took to come up;
	// nil for targets llmgate did not start (endpoints, the simulator).
	Startup *Startup `json:"startup,omitempty"`
	// Capacity is set on a capacity search's run: the answer it found.
	Capacity *CapacityAnswer `json:"capacity,omitempty"`

	// DurationSeconds is the measured window: first send after warmup to last completion.
	DurationSeconds float64 `json:"duration_s"`
	// InputTokens and OutputTokens are totals over measured requests, from usage.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Stats are summary statistics of one latency distribution.
type Stats struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Std    float64 `json:"std"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p99_9"`
}

// Throughput is measured over the run's measured window.
type Throughput struct {
	Requests     float64 `json:"requests"`
	OutputTokens float64 `json:"output_tokens"`
	TotalTokens  float64 `json:"total_tokens"`
}

// Goodput counts requests that met every goodput limit.
type Goodput struct {
	Requests float64 `json:"requests"`
	Ratio    float64 `json:"ratio"`
	// Absent is true when goodput was not measured (a vllm bench serve
	// result without --goodput saves request_goodput: null): the goodput
	// metrics are then missing, not 0.
	Absent bool `json:"absent,omitempty"`
}

// Requests counts measured requests by outcome.
type Requests struct {
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// EmptyAnswers counts the completed requests whose answer ended before
	// any text (a stop sequence at the first token): they have no TTFT,
	// TPOT or ITL sample.
	EmptyAnswers int `json:"empty_answers,omitempty"`
}

// ServerMetrics are derived from the server's Prometheus /metrics during the run.
type ServerMetrics struct {
	KVCacheUsageMax    float64 `json:"kv_cache_usage_max"`
	RequestsWaitingMax float64 `json:"requests_waiting_max"`
	Preemptions        float64 `json:"preemptions"`
	// PrefixCacheQueries and PrefixCacheHits are the prompt tokens looked
	// up in the prefix cache over the run and those that hit, and
	// PrefixCacheHitRate hits / queries. Nil is a server that reported no
	// prefix-cache counters (llama.cpp's), or a window they do not cover
	// (the server restarted): not a 0, which is a cache that served
	// nothing (a rate of 0 with no queries: caching off). Files that wrote
	// 0 for an unreported rate read as written; those that predate the
	// counts read them nil.
	PrefixCacheHitRate *float64 `json:"prefix_cache_hit_rate,omitempty"`
	PrefixCacheQueries *float64 `json:"prefix_cache_queries,omitempty"`
	PrefixCacheHits    *float64 `json:"prefix_cache_hits,omitempty"`
	// QueueTime, PrefillTime, DecodeTime and InferenceTime are the server's
	// own split of its requests' time over the measured phase (vLLM's
	// vllm:request_*_time_seconds histograms): waiting in its queue, from
	// scheduled to first token, from first to last token, and from
	// scheduled to last token. Nil when the server exports no such
	// histogram or observed no request in the window.
	QueueTime     *ServerLatency `json:"queue_time,omitempty"`
	PrefillTime   *ServerLatency `json:"prefill_time,omitempty"`
	DecodeTime    *ServerLatency `json:"decode_time,omitempty"`
	InferenceTime *ServerLatency `json:"inference_time,omitempty"`
	// SpecDecode is the server's speculative decoding over the measured
	// phase (vLLM's vllm:spec_decode_* counters); nil when it exports none
	// or made no draft in the window.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
}

// Reasoning describes the reasoning of a run whose model reasons before it
// answers: its tokens and its answers' own tokens per completed request.
type Reasoning struct {
	// Requests counts the completed requests that reasoned or whose usage
	// reported reasoning tokens (0 included).
	Requests int `json:"requests"`
	// Counted of them had their reasoning tokens counted from the stream,
	// the server's usage reporting none.
	Counted int `json:"counted,omitempty"`
	// Unanswered counts the completed requests whose stream ended in the
	// reasoning, before any answer token: they have a TTFT but no TTFO.
	Unanswered int `json:"unanswered,omitempty"`
	// Tokens are the reasoning tokens per completed request (0 for one
	// that did not reason); AnswerTokens the output tokens that were not
	// reasoning.
	Tokens       Stats `json:"tokens"`
	AnswerTokens Stats `json:"answer_tokens"`
}

// Structured reports structured-output validity.
type Structured struct {
	ValidRate float64 `json:"valid_rate"`
}

// Client reports the load generator's own figures, from which its health
// checks judge it.
type Client struct {
	// ScheduleLagP99 is the p99 of send time minus planned time, ms.
	ScheduleLagP99 float64 `json:"schedule_lag_p99"`
	// AchievedRate is the rate requests were sent at, requests/s.
	AchievedRate float64 `json:"achieved_rate"`
	// PlannedRate is the rate of the planned send times, requests/s (for a
	// closed loop, its users' own pace).
	PlannedRate float64 `json:"planned_rate,omitempty"`
	// MeanInFlight is the time-averaged number of requests in flight from
	// the first to the last measured request a user took (its send, or the
	// start of the think time it held it for): Little's law.
	MeanInFlight float64 `json:"mean_in_flight,omitempty"`
	// MeanThinking is the time-averaged number of closed-loop users holding
	// their next turn for its think time over the same window: busy users
	// with no request in flight.
	MeanThinking float64 `json:"mean_thinking,omitempty"`
	// Reconnects counts the connections measured requests set aside,
	// unwritten, because the server may have closed them (idle too long,
	// or closed): each such request went on a fresh connection.
	Reconnects int `json:"reconnects,omitempty"`
}
