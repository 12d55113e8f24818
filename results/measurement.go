package results

// CacheReset says whether the server's prefix cache was reset before a run,
// so that the run did not measure cache hits left by an earlier one.
type CacheReset struct {
	// Done is true when the server answered the reset with 200 and, where
	// it could be checked, a prompt cached before it did not hit the cache
	// after it.
	Done bool `json:"done"`
	// Reason says why it was not done (the server does not serve the
	// endpoint, refused, had requests in flight, answered 200 and kept its
	// cache, ...); empty when Done.
	Reason string `json:"reason,omitempty"`
	// Unverified says why a reset that was done could not be checked (no
	// prefix-cache counters on /metrics, ...); empty when it was checked.
	Unverified string `json:"unverified,omitempty"`
}

// LoadConfig is the load a run was driven with, as numbers: what its name
// says only for the swept values, and formatted.
type LoadConfig struct {
	// Concurrency is the closed loop's users, or the open loop's cap (0: none).
	Concurrency int `json:"concurrency,omitempty"`
	// Rate is the open loop's mean arrival rate, requests/s; 0 for a closed loop.
	Rate float64 `json:"rate,omitempty"`
	// Burstiness is the gamma shape of inter-arrival gaps (1: Poisson).
	Burstiness float64 `json:"burstiness,omitempty"`
	// Ramp, RampFrom (requests/s) and RampOverS (seconds) describe a rate ramp.
	Ramp      string  `json:"ramp,omitempty" text:"line"`
	RampFrom  float64 `json:"ramp_from,omitempty"`
	RampOverS float64 `json:"ramp_over_s,omitempty"`
	// Requests and DurationS bound the measured phase (0: no bound).
	Requests  int     `json:"requests,omitempty"`
	DurationS float64 `json:"duration_s,omitempty"`
	// Warmup is the number of warmup requests asked for (a closed loop
	// also warms up with each user's first request).
	Warmup int `json:"warmup,omitempty"`
	// RampUpS is how long a closed loop took to start all its users, s.
	RampUpS float64 `json:"ramp_up_s,omitempty"`
	// Seed is the suite's seed; prompts derive from it and the run's name.
	Seed int64 `json:"seed"`
	// Mix names the members of a mix with their weights; nil without one.
	Mix []MixShare `json:"mix,omitempty"`
	// Stages are the stages of a staged load, in order; nil without them.
	Stages []StageConfig `json:"stages,omitempty"`
	// Workload is the workload kind and the rest its lengths, in tokens.
	Workload     string  `json:"workload" text:"line"`
	InputTokens  int     `json:"input_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
	RangeRatio   float64 `json:"range_ratio,omitempty"`
	PrefixTokens int     `json:"prefix_tokens,omitempty"`
	PrefixGroups int     `json:"prefix_groups,omitempty"`
	Turns        int     `json:"turns,omitempty"`
	ThinkTimeS   float64 `json:"think_time_s,omitempty"`
	// LengthBuckets are the edges of the input-length buckets, in tokens:
	// as declared, or as resolved from the requested lengths for
	// LengthQuantiles.
	LengthBuckets []int `json:"length_buckets,omitempty"`
	// LengthQuantiles is the number of quantile buckets asked for; 0 when
	// the edges were declared.
	LengthQuantiles int `json:"length_quantiles,omitempty"`
	// LengthBucketNames name the buckets in metric names, one a bucket.
	LengthBucketNames []string `json:"length_bucket_names,omitempty" text:"name"`
	// Chat is true when prompts went to /v1/chat/completions.
	Chat bool `json:"chat,omitempty"`
	// TextPrompts is true when /v1/completions was asked for text prompts.
	TextPrompts bool `json:"text_prompts,omitempty"`
	// DatasetFilter is the dataset workload's dataset_filter ("": none);
	// DatasetFormat its file's format ("": ShareGPT, "jsonl", "csv");
	// MaxPromptTokens and MaxTotalTokens its bounds (0: none).
	DatasetFilter   string `json:"dataset_filter,omitempty"`
	DatasetFormat   string `json:"dataset_format,omitempty" text:"name"`
	MaxPromptTokens int    `json:"max_prompt_tokens,omitempty"`
	MaxTotalTokens  int    `json:"max_total_tokens,omitempty"`
	// Trace is the trace workload's file, by name; TraceFormat its format
	// ("mooncake", "azure", "jsonl"); TraceDigest "sha256:" and the hex
	// SHA-256 of its bytes, so that two runs that replayed the same
	// digest are known to have replayed the same trace.
	Trace       string `json:"trace,omitempty" text:"line"`
	TraceFormat string `json:"trace_format,omitempty" text:"name"`
	TraceDigest string `json:"trace_digest,omitempty" text:"line"`
	// TimeScale divides the trace's gaps (0: 1); TraceStartS is where in
	// the trace the replay began, s; BlockSize the tokens a hash id
	// stands for (0: 512).
	TimeScale   float64 `json:"time_scale,omitempty"`
	TraceStartS float64 `json:"trace_start_s,omitempty"`
	BlockSize   int     `json:"block_size,omitempty"`
	// Request is the shape every request took beyond the workload's
	// fields (a suite's request block); nil for none.
	Request *RequestShape `json:"request,omitempty"`
}

// RequestShape is a run's request block as the results file keeps it.
type RequestShape struct {
	// ExtraBody is the JSON object merged into every request body, keys
	// sorted; "" for none.
	ExtraBody string `json:"extra_body,omitempty" text:"line"`
	// Headers are the headers sent with every request, in the order sent.
	Headers []RequestHeader `json:"headers,omitempty"`
}

// RequestHeader is one header of RequestShape. A value that is a secret
// by the header's name (Authorization, X-Api-Key, Cookie) is kept as
// untrusted.Masked, never as sent.
type RequestHeader struct {
	Name  string `json:"name" text:"name"`
	Value string `json:"value" text:"line"`
}

// DatasetFit is what a dataset run found of its entries against the
// model's context (and, with the vllm_bench filter, vllm bench serve's
// ShareGPT bounds) before its first request.
type DatasetFit struct {
	// Filter is the workload's dataset_filter ("": none, entries are kept).
	Filter string `json:"filter,omitempty"`
	// Context is the model's context in tokens, 0 when the server did not
	// say: no model has a context of 0 tokens (a max_model_len of 0 from
	// /v1/models is taken for none), so 0 is never a real context.
	Context int `json:"context,omitempty"`
	// Method is how lengths were counted: CountTokenize or CountEstimate.
	Method CountMethod `json:"method"`
	// Checked counts the entries looked at (those the run uses, up to a bound).
	Checked int `json:"checked"`
	// Unfit counts those whose prompt and answer cannot fit the context:
	// the server refuses them (400) unless they were dropped.
	Unfit int `json:"unfit,omitempty"`
	// Dropped counts the entries the filter left out (Unfit included when
	// it drops them).
	Dropped int `json:"dropped,omitempty"`
	// MaxPromptTokens and MaxTotalTokens are the workload's bounds on a
	// prompt, and on a prompt and its answer (max_tokens); 0: none.
	MaxPromptTokens int `json:"max_prompt_tokens,omitempty"`
	MaxTotalTokens  int `json:"max_total_tokens,omitempty"`
}

// Calibration says how a run made its text prompts the requested length:
// the server's tokenizer and chat template decide how many tokens a text
// is, so llmgate measures them before the run.
type Calibration struct {
	// Method is how the lengths were calibrated (one of the
	// CalibrationMethod constants).
	Method CalibrationMethod `json:"method" text:"line"`
	// TokensPerWord and OverheadTokens are the fit: a text of w words
	// makes a prompt of OverheadTokens + TokensPerWord*w tokens, the chat
	// template and any fixed instructions included.
	TokensPerWord  float64 `json:"tokens_per_word,omitempty"`
	OverheadTokens float64 `json:"overhead_tokens,omitempty"`
	// TextFallback is set when the server refused token-id prompts, so the
	// run sent text instead; it holds the server's answer.
	TextFallback string `json:"text_fallback,omitempty"`
	// Note explains a Method of "none".
	Note string `json:"note,omitempty"`
}

// Lengths compares the prompt and answer lengths a run's workload drew with
// what the server reported in usage: means in tokens per completed request,
// each over the requests that asked for a length (0 when none did: a
// conversation's later turns, answers allowed to stop early).
type Lengths struct {
	InputRequested  float64 `json:"input_requested,omitempty"`
	InputActual     float64 `json:"input_actual,omitempty"`
	OutputRequested float64 `json:"output_requested,omitempty"`
	OutputActual    float64 `json:"output_actual,omitempty"`
	// InputActualMax is the longest prompt the server counted among them,
	// and InputRequestedMax the longest asked for: a server that truncates
	// prompts to its context counts none longer than the context.
	InputActualMax    int `json:"input_actual_max,omitempty"`
	InputRequestedMax int `json:"input_requested_max,omitempty"`
}

// ServerSeries is the time series of a server's /metrics over a run's
// measured phase, one entry per scrape in each column (the first taken as
// the phase began, the last after it ended), so that short runs and
// transients can be seen, not only maxima.
type ServerSeries struct {
	// TMS is when each scrape was taken, ms after the measured phase began.
	TMS []int64 `json:"t_ms"`
	// KVCacheUsage is vllm:kv_cache_usage_perc (0..1, the largest engine's).
	KVCacheUsage []float64 `json:"kv_cache_usage"`
	// Running and Waiting are vllm:num_requests_running and _waiting.
	Running []float64 `json:"running"`
	Waiting []float64 `json:"waiting"`
	// Preemptions is vllm:num_preemptions_total, cumulative since the
	// server started.
	Preemptions []float64 `json:"preemptions"`
	// Failed counts scrapes that gave nothing (no server metrics, 404, too large,
	// too slow, unreachable); Error is the last one's reason.
	Failed int    `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
	// Refused says which metrics a scrape left out, as absent, for a value
	// not within its Limit (a NaN, an infinity, a negative or absurd
	// value), and why: the last scrape's that left one out; "" when none did.
	Refused string `json:"refused,omitempty"`
}

// CountMethod is how a DatasetFit counted its entries' tokens. It is
// written to the results file as its string.
type CountMethod string

// How a DatasetFit counted tokens.
const (
	CountTokenize CountMethod = "tokenize" // the server's POST /tokenize
	CountEstimate CountMethod = "estimate" // a token per 4 bytes
)

// CalibrationMethod is how a run matched its prompts' lengths to the
// workload. It is written to the results file as its string.
type CalibrationMethod string

// How a run calibrated its prompt lengths.
const (
	CalibratedTokenIDs CalibrationMethod = "token_ids" // prompts of token ids: exact, nothing to calibrate
	CalibratedTokenize CalibrationMethod = "tokenize"  // the server's POST /tokenize
	CalibratedUsage    CalibrationMethod = "usage"     // a request's usage.prompt_tokens
	NotCalibrated      CalibrationMethod = "none"      // it could not; Calibration.Note says why
)
