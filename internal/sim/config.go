package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Config is one simulator's settings: vLLM's own server flags plus the
// simulator's. Zero values mean "vLLM's default" (or the profile's).
type Config struct {
	// Model is the model name or path, as given to `vllm serve`.
	Model string
	// ServedModelName is the name clients must send; "" means Model.
	ServedModelName string
	// Host and Port are where ListenAndServe listens (default 0.0.0.0:8000;
	// Port 0 means 8000). To listen on a random port, pass a listener to Serve.
	Host string
	Port int

	// GPUMemoryUtilization is the fraction of GPU memory vLLM may use (0.9).
	GPUMemoryUtilization float64
	// MaxNumSeqs caps the running batch; MaxNumBatchedTokens caps the tokens
	// of one step; MaxModelLen caps prompt plus output. 0 = profile default.
	MaxNumSeqs, MaxNumBatchedTokens, MaxModelLen int
	// NoPrefixCaching turns prefix caching off (vLLM: --no-enable-prefix-caching).
	NoPrefixCaching bool
	// NoChunkedPrefill is --no-enable-chunked-prefill (or
	// --enable-chunked-prefill=false): the start-up check vLLM makes then
	// applies, though the simulator's engine chunks prefills whatever.
	NoChunkedPrefill bool
	// KVCacheDtype is "auto" (the model's dtype) or an fp8 variant.
	KVCacheDtype string
	// TensorParallelSize is the number of GPUs (0 = profile default).
	TensorParallelSize int
	// EnableExpertParallel shards MoE experts instead of splitting them.
	EnableExpertParallel bool
	// BlockSize is the KV-cache block size in tokens (16).
	BlockSize int
	// APIKey, when set, is required as a Bearer token on /v1 paths.
	APIKey string
	// KeepAlive is how long an idle keep-alive connection stays open before
	// the server closes it, as uvicorn's timeout_keep_alive does in vLLM
	// (VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5 s by default); 0 means
	// DefaultKeepAlive.
	KeepAlive time.Duration

	// Profile names the simulated deployment. When "", the model's H100
	// profile if there is one, else DefaultProfile.
	Profile string
	// Seed makes generated tokens deterministic (same seed and request,
	// same tokens).
	Seed int64
	// Slowdown multiplies every step's time (1 = none; 1.2 = 20% slower).
	Slowdown float64
	// TimeScale runs the model's clock faster than the wall clock: every
	// modelled duration (each engine step, so prefill and decode, and the
	// stalls and the start-up delay) takes TimeScale times as long on the
	// wall clock. It is in (0, 1]; 0 means 1 (real time). Tests use it to
	// check behaviour in a tenth of the time. What is not modelled is not
	// scaled: the HTTP keep-alive and idle timeouts stay as given, and the
	// Prometheus metrics (TTFT, queue and step histograms) are measured on
	// the wall clock, in wall seconds, so a server at 0.1 reports a tenth
	// of the model's times.
	TimeScale float64
	// FailRate is the fraction of generation requests answered with a 500.
	FailRate float64
	// InvalidStructuredRate is the fraction of structured-output answers
	// cut off half-way, so that they no longer parse or follow the schema
	// (a test knob: a broken guided-decoding backend).
	InvalidStructuredRate float64
	// ReasoningTokens, when above 0, makes the simulated model reason
	// before it answers: the first ReasoningTokens tokens of every chat
	// answer (not of a structured one) stream in delta.reasoning_content,
	// as vLLM's reasoning parsers send them, and the answer's own tokens
	// follow in delta.content. They are output tokens like the others
	// (usage's completion_tokens counts them); an answer that stops by
	// itself stops that much later.
	ReasoningTokens int
	// SpecTokens, when above 0, decodes speculatively with that many
	// draft tokens a step (vLLM's --speculative-config
	// num_speculative_tokens), and SpecAcceptanceRate is the fraction of
	// them the target accepts (nil: DefaultSpecAcceptanceRate); see
	// specdecode.go.
	SpecTokens         int
	SpecAcceptanceRate *float64
	// EnableAutoToolChoice is --enable-auto-tool-choice: a request's
	// tool_choice "auto" (the default when it offers tools) is refused
	// without it, as vLLM refuses it.
	EnableAutoToolChoice bool
	// PerSeqOverhead, when set, replaces the profile's cost of a step per
	// sequence it serves (a duration such as "2ms"): a test knob that makes
	// decode steps grow with the batch.
	PerSeqOverhead string
	// Stall freezes the engine: "DUR@AT" once, AT after the first request,
	// or "DUR@AT/EVERY" repeatedly (e.g. "2s@10s", "500ms@5s/30s").
	Stall string
	// StartupDelay is how long ListenAndServe takes before it listens, with
	// vLLM's log lines for loading, compiling and graph capture (a test
	// knob for start-up times).
	StartupDelay time.Duration

	// Log receives vLLM-like startup and shutdown lines; nil discards them.
	Log io.Writer

	// profile overrides Profile (tests and benchmarks).
	profile *Profile
	// recordTiming keeps every step's lateness (benchmarks).
	recordTiming bool
}

// stallSpec is a parsed --stall.
type stallSpec struct {
	dur, at, every time.Duration
}

func parseStall(s string) (stallSpec, error) {
	var sp stallSpec
	if s == "" {
		return sp, nil
	}
	bad := func(err error) (stallSpec, error) {
		return stallSpec{}, fmt.Errorf("bad --stall %q (want DUR@AT or DUR@AT/EVERY, e.g. 2s@10s): %w", s, err)
	}
	d, rest, ok := strings.Cut(s, "@")
	if !ok {
		return bad(errors.New("missing @"))
	}
	at, every, rep := strings.Cut(rest, "/")
	var err error
	if sp.dur, err = time.ParseDuration(d); err != nil || sp.dur <= 0 {
		return bad(fmt.Errorf("duration %q", d))
	}
	if sp.at, err = time.ParseDuration(at); err != nil || sp.at < 0 {
		return bad(fmt.Errorf("start %q", at))
	}
	if rep {
		if sp.every, err = time.ParseDuration(every); err != nil || sp.every <= sp.dur {
			return bad(fmt.Errorf("period %q must be longer than the stall", every))
		}
	}
	return sp, nil
}

// profileName is --profile, or else the H100 profile of the model when one
// exists (so `llmgate sim mistralai/Mixtral-8x7B-Instruct-v0.1` simulates
// Mixtral), or else DefaultProfile.
func (c Config) profileName() string {
	if c.Profile != "" || c.Model == "" {
		return c.Profile
	}
	for _, n := range ProfileNames() {
		if p := profiles[n]; strings.EqualFold(p.ModelName, c.Model) && strings.HasSuffix(n, "-h100") {
			return n
		}
	}
	return DefaultProfile
}

// ContextLength is the context in tokens a simulator started with c
// serves: its --max-model-len, else its profile's.
func ContextLength(c Config) (int, error) {
	r, err := c.resolve()
	if err != nil {
		return 0, err
	}
	return r.MaxModelLen, nil
}

// resolved is a Config with every default filled in and checked.
type resolved struct {
	Config
	prof        *Profile
	served      string
	tp          int
	kvDtype     float64
	numBlocks   int
	stall       stallSpec
	perSeq      time.Duration
	weightsGiB  float64
	kvGiB       float64
	maxTokensKV int
	specRate    float64
}

// resolve fills defaults from the profile and computes the KV budget the way
// vLLM does: GPU memory x utilization - weights - peak activation - non-torch.
func (c Config) resolve() (*resolved, error) {
	r := &resolved{Config: c}
	p := c.profile
	if p == nil {
		var err error
		if p, err = LookupProfile(c.profileName()); err != nil {
			return nil, err
		}
	}
	r.prof = p
	r.Profile = p.Name
	if r.Model == "" {
		r.Model = p.ModelName
	}
	r.served = r.ServedModelName
	if r.served == "" {
		r.served = r.Model
	}
	if r.Host == "" {
		r.Host = "0.0.0.0"
	}
	if r.Port == 0 {
		r.Port = 8000
	}
	if r.GPUMemoryUtilization == 0 {
		r.GPUMemoryUtilization = 0.9
	}
	if r.GPUMemoryUtilization <= 0 || r.GPUMemoryUtilization > 1 {
		return nil, fmt.Errorf("--gpu-memory-utilization %v must be in (0, 1]", r.GPUMemoryUtilization)
	}
	if r.MaxNumSeqs == 0 {
		r.MaxNumSeqs = p.DefaultMaxNumSeqs
	}
	if r.MaxNumSeqs < 1 {
		return nil, fmt.Errorf("--max-num-seqs %d must be at least 1", r.MaxNumSeqs)
	}
	if r.MaxModelLen == 0 {
		r.MaxModelLen = p.MaxModelLen
	}
	if r.MaxModelLen < 1 || r.MaxModelLen > p.MaxModelLen {
		return nil, fmt.Errorf("--max-model-len %d must be in [1, %d] for %s", r.MaxModelLen, p.MaxModelLen, p.ModelName)
	}
	if r.MaxNumBatchedTokens == 0 {
		r.MaxNumBatchedTokens = p.DefaultMaxNumBatchedTokens
	}
	if r.MaxNumBatchedTokens < 1 {
		return nil, fmt.Errorf("--max-num-batched-tokens %d must be at least 1", r.MaxNumBatchedTokens)
	}
	// vLLM's SchedulerConfig.verify_max_model_len refuses both at start-up
	if r.NoChunkedPrefill && r.MaxNumBatchedTokens < r.MaxModelLen {
		return nil, fmt.Errorf("max_num_batched_tokens (%d) is smaller than max_model_len (%d). This effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer sequences. Please increase max_num_batched_tokens or decrease max_model_len", r.MaxNumBatchedTokens, r.MaxModelLen)
	}
	if r.MaxNumBatchedTokens < r.MaxNumSeqs {
		return nil, fmt.Errorf("max_num_batched_tokens (%d) must be greater than or equal to max_num_seqs (%d)", r.MaxNumBatchedTokens, r.MaxNumSeqs)
	}
	if r.BlockSize == 0 {
		r.BlockSize = 16
	}
	switch r.BlockSize {
	case 1, 8, 16, 32, 64, 128:
	default:
		return nil, fmt.Errorf("--block-size %d must be one of 1, 8, 16, 32, 64, 128", r.BlockSize)
	}
	r.tp = r.TensorParallelSize
	if r.tp == 0 {
		r.tp = p.DefaultTP
	}
	if r.tp < 1 || r.tp > 8 {
		return nil, fmt.Errorf("--tensor-parallel-size %d must be in [1, 8]", r.tp)
	}
	r.TensorParallelSize = r.tp
	var err error
	if r.kvDtype, err = kvDtypeBytes(r.KVCacheDtype); err != nil {
		return nil, err
	}
	if r.KVCacheDtype == "" {
		r.KVCacheDtype = "auto"
	}
	if r.Slowdown == 0 {
		r.Slowdown = 1
	}
	if r.Slowdown < 0 || math.IsNaN(r.Slowdown) || math.IsInf(r.Slowdown, 0) {
		return nil, fmt.Errorf("--slowdown %v must be positive", r.Slowdown)
	}
	if r.TimeScale == 0 {
		r.TimeScale = 1
	}
	if err := checkTimeScale(r.TimeScale); err != nil {
		return nil, err
	}
	if r.FailRate < 0 || r.FailRate > 1 || math.IsNaN(r.FailRate) {
		return nil, fmt.Errorf("--fail-rate %v must be in [0, 1]", r.FailRate)
	}
	if r.InvalidStructuredRate < 0 || r.InvalidStructuredRate > 1 || math.IsNaN(r.InvalidStructuredRate) {
		return nil, fmt.Errorf("--invalid-structured-rate %v must be in [0, 1]", r.InvalidStructuredRate)
	}
	if r.ReasoningTokens < 0 || r.ReasoningTokens >= r.MaxModelLen {
		return nil, fmt.Errorf("--reasoning-tokens %d must be from 0 to below --max-model-len %d", r.ReasoningTokens, r.MaxModelLen)
	}
	if r.SpecTokens < 0 || r.SpecTokens > MaxSpecTokens {
		return nil, fmt.Errorf("num_speculative_tokens %d must be from 0 to %d", r.SpecTokens, MaxSpecTokens)
	}
	if a := r.SpecAcceptanceRate; a != nil {
		if r.SpecTokens == 0 {
			return nil, errors.New(`--spec-acceptance-rate needs a --speculative-config with num_speculative_tokens (e.g. '{"method": "ngram", "num_speculative_tokens": 3}')`)
		}
		if !(*a >= 0 && *a <= 1) {
			return nil, fmt.Errorf("--spec-acceptance-rate %v must be in [0, 1]", *a)
		}
		r.specRate = *a
	} else {
		r.specRate = DefaultSpecAcceptanceRate
	}
	if r.stall, err = parseStall(r.Stall); err != nil {
		return nil, err
	}
	r.stall = stallSpec{dur: r.wall(r.stall.dur), at: r.wall(r.stall.at), every: r.wall(r.stall.every)}
	r.perSeq = p.PerSeqOverhead
	if r.PerSeqOverhead != "" {
		d, err := time.ParseDuration(r.PerSeqOverhead)
		if err != nil || d < 0 || d > time.Second {
			return nil, fmt.Errorf("bad --per-seq-overhead %q: want a duration from 0 to 1s, e.g. 2ms", r.PerSeqOverhead)
		}
		r.perSeq = d
	}

	// The KV budget per GPU, as vLLM's profiling run computes it.
	perGPUWeights := p.weightBytes() / float64(r.tp)
	budget := float64(p.GPUMemoryBytes)*r.GPUMemoryUtilization - perGPUWeights - float64(p.ActivationBytes) - float64(p.NonTorchBytes)
	r.weightsGiB = perGPUWeights / gib
	if budget <= 0 {
		return nil, fmt.Errorf("no memory left for the KV cache: %.2f GiB x %.2f leaves %.2f GiB after %.2f GiB of weights and %.2f GiB of activations per GPU; raise --gpu-memory-utilization or --tensor-parallel-size",
			float64(p.GPUMemoryBytes)/gib, r.GPUMemoryUtilization, (float64(p.GPUMemoryBytes)*r.GPUMemoryUtilization-perGPUWeights)/gib, r.weightsGiB, float64(p.ActivationBytes+p.NonTorchBytes)/gib)
	}
	r.kvGiB = budget / gib
	perGPUKVToken := p.kvBytesPerToken(r.kvDtype) / float64(r.tp)
	r.numBlocks = int(budget / (perGPUKVToken * float64(r.BlockSize)))
	r.maxTokensKV = r.numBlocks * r.BlockSize
	if r.maxTokensKV < r.MaxModelLen {
		return nil, fmt.Errorf("the model's max seq len (%d) is larger than the maximum number of tokens that can be stored in KV cache (%d); raise --gpu-memory-utilization or lower --max-model-len",
			r.MaxModelLen, r.maxTokensKV)
	}
	return r, nil
}

// checkTimeScale refuses a --time-scale outside (0, 1]: the simulator
// can run its model faster than real time, never slower (--slowdown does).
func checkTimeScale(f float64) error {
	if !(f > 0 && f <= 1) {
		return fmt.Errorf("--time-scale %v must be above 0 and at most 1 (0.1 runs the model ten times faster than real time; for a slower server use --slowdown)", f)
	}
	return nil
}

// wall is how long the modelled duration d takes on the wall clock.
func (r *resolved) wall(d time.Duration) time.Duration {
	if r.TimeScale == 1 {
		return d
	}
	return time.Duration(float64(d) * r.TimeScale)
}

// keepAlive is the idle keep-alive timeout the server applies.
func (c *Config) keepAlive() time.Duration {
	if c.KeepAlive > 0 {
		return c.KeepAlive
	}
	return DefaultKeepAlive
}
