package sim

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     Config
		warnings int
		err      string
	}{
		// The model as a positional argument, flags after it, like `vllm serve`.
		{name: "positional", args: []string{"meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "8", "--port", "9000"},
			want: Config{Model: "meta-llama/Llama-3.1-8B-Instruct", MaxNumSeqs: 8, Port: 9000}},
		// --model and --flag=value forms, underscores as dashes.
		{name: "equals and underscores", args: []string{"--model=m", "--gpu_memory_utilization=0.8", "--max-model-len", "4k", "--served-model-name", "x"},
			want: Config{Model: "m", GPUMemoryUtilization: 0.8, MaxModelLen: 4000, ServedModelName: "x"}},
		// Prefix caching off, fp8 KV cache, tensor parallelism with -tp.
		{name: "engine flags", args: []string{"--no-enable-prefix-caching", "--kv-cache-dtype", "fp8", "-tp", "2", "--block-size", "32", "--enable-expert-parallel"},
			want: Config{NoPrefixCaching: true, KVCacheDtype: "fp8", TensorParallelSize: 2, BlockSize: 32, EnableExpertParallel: true}},
		// Simulator flags.
		{name: "sim flags", args: []string{"--profile", "tiny", "--seed", "7", "--slowdown", "1.2", "--fail-rate", "0.1", "--stall", "1s@2s/10s", "--api-key", "k", "--invalid_structured_rate=0.25", "--per-seq-overhead", "2ms", "--reasoning-tokens", "10"},
			want: Config{Profile: "tiny", Seed: 7, Slowdown: 1.2, FailRate: 0.1, Stall: "1s@2s/10s", APIKey: "k", InvalidStructuredRate: 0.25, PerSeqOverhead: "2ms", ReasoningTokens: 10}},
		// A time scale in (0, 1], in either form.
		{name: "time scale", args: []string{"--time-scale", "0.1"}, want: Config{TimeScale: 0.1}},
		{name: "time scale one", args: []string{"--time_scale=1"}, want: Config{TimeScale: 1}},
		// Outside (0, 1] it is refused, saying so; 0 is not "the default".
		{name: "time scale zero", args: []string{"--time-scale", "0"}, err: "--time-scale 0 must be above 0 and at most 1"},
		{name: "time scale negative", args: []string{"--time-scale=-0.5"}, err: "--time-scale -0.5 must be above 0 and at most 1"},
		{name: "time scale slower", args: []string{"--time-scale", "2"}, err: "--time-scale 2 must be above 0 and at most 1"},
		{name: "time scale NaN", args: []string{"--time-scale", "NaN"}, err: "--time-scale NaN must be above 0 and at most 1"},
		{name: "time scale not a number", args: []string{"--time-scale", "fast"}, err: `flag --time-scale: "fast" is not a number`},
		// Unknown vLLM flags: with a value, as booleans, and with =value.
		{name: "unknown flags", args: []string{"--enforce-eager", "m", "--dtype", "bfloat16", "--swap-space=4", "--no-foo", "--trust-remote-code"},
			want: Config{Model: "m"}, warnings: 5},
		// An unknown flag's negative number value is consumed too.
		{name: "unknown with number", args: []string{"--max-logprobs", "-1", "m"}, want: Config{Model: "m"}, warnings: 1},
		// A bad number is a clear error.
		{name: "bad number", args: []string{"--max-num-seqs", "lots"}, err: `flag --max-num-seqs: "lots" is not an integer`},
		// A rate outside [0, 1], or not a number, is a clear error.
		{name: "invalid structured rate above 1", args: []string{"--invalid-structured-rate", "1.5"}, err: "--invalid-structured-rate 1.5 must be in [0, 1]"},
		{name: "invalid structured rate negative", args: []string{"--invalid-structured-rate=-0.1"}, err: "--invalid-structured-rate -0.1 must be in [0, 1]"},
		{name: "invalid structured rate not a number", args: []string{"--invalid-structured-rate", "half"}, err: `flag --invalid-structured-rate: "half" is not a number`},
		// A per-sequence overhead must be a duration from 0 to 1s.
		{name: "per-seq overhead not a duration", args: []string{"--per-seq-overhead", "2"}, err: `bad --per-seq-overhead "2": want a duration from 0 to 1s`},
		{name: "reasoning tokens negative", args: []string{"--reasoning-tokens=-1"}, err: "--reasoning-tokens -1 must be from 0 to below --max-model-len"},
		{name: "per-seq overhead negative", args: []string{"--per-seq-overhead=-1ms"}, err: `bad --per-seq-overhead "-1ms"`},
		{name: "per-seq overhead too long", args: []string{"--per-seq-overhead", "2s"}, err: `bad --per-seq-overhead "2s"`},
		// A missing value is an error.
		{name: "missing value", args: []string{"--port"}, err: "flag --port needs a value"},
		// Two models is an error.
		{name: "two models", args: []string{"a", "b"}, err: "unexpected arguments"},
		// An unknown profile lists the known ones.
		{name: "bad profile", args: []string{"--profile", "gpt5-b200"}, err: "known: llama-3.1-8b-a100, llama-3.1-8b-h100, mixtral-8x7b-h100, tiny"},
		// A bad stall spec explains the format.
		{name: "bad stall", args: []string{"--stall", "2s"}, err: "want DUR@AT or DUR@AT/EVERY"},
		// Too little memory for the weights is an error, like vLLM's.
		{name: "no kv memory", args: []string{"--profile", "tiny", "--gpu-memory-utilization", "0.5"}, err: "no memory left for the KV cache"},
		// Mixtral does not fit one H100.
		{name: "mixtral tp1", args: []string{"--profile", "mixtral-8x7b-h100", "-tp", "1"}, err: "no memory left for the KV cache"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings, err := ParseArgs(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Config{})); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if len(warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", warnings, tc.warnings)
			}
		})
	}
	if _, _, err := ParseArgs([]string{"m", "--help"}); !errors.Is(err, ErrHelp) {
		t.Errorf("--help: err = %v, want ErrHelp", err)
	}
}

// The KV budget follows vLLM's arithmetic; fp8 doubles it, TP spreads it.
func TestKVBudget(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		minTokens int
		maxTokens int
	}{
		// Llama 3.1 8B on an H100 at 0.9: ~54 GiB for 128 KiB tokens.
		{name: "llama h100", cfg: Config{}, minTokens: 400_000, maxTokens: 480_000},
		// The same with an fp8 cache holds twice the tokens.
		{name: "llama h100 fp8", cfg: Config{KVCacheDtype: "fp8"}, minTokens: 800_000, maxTokens: 960_000},
		// A100 80GB is a similar size.
		{name: "llama a100", cfg: Config{Profile: "llama-3.1-8b-a100"}, minTokens: 400_000, maxTokens: 480_000},
		// Mixtral on two H100s.
		{name: "mixtral tp2", cfg: Config{Profile: "mixtral-8x7b-h100"}, minTokens: 300_000, maxTokens: 500_000},
		// Lower utilization, less cache.
		{name: "llama h100 0.5", cfg: Config{GPUMemoryUtilization: 0.5}, minTokens: 150_000, maxTokens: 200_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.cfg.resolve()
			if err != nil {
				t.Fatal(err)
			}
			if tc.cfg.Profile == "" && r.Profile != DefaultProfile {
				t.Errorf("profile %s, want the default", r.Profile)
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.maxTokensKV < tc.minTokens || r.maxTokensKV > tc.maxTokens {
				t.Errorf("KV cache %d tokens, want in [%d, %d]", r.maxTokensKV, tc.minTokens, tc.maxTokens)
			}
		})
	}
}

func TestParseStall(t *testing.T) {
	sp, err := parseStall("500ms@5s/30s")
	if err != nil {
		t.Fatal(err)
	}
	if sp != (stallSpec{500 * time.Millisecond, 5 * time.Second, 30 * time.Second}) {
		t.Errorf("parseStall = %+v", sp)
	}
	for _, bad := range []string{"1s", "x@1s", "1s@x", "2s@1s/1s", "-1s@0s"} {
		if _, err := parseStall(bad); err == nil {
			t.Errorf("parseStall(%q) succeeded", bad)
		}
	}
}

// A known model picks its own profile when --profile is not given.
func TestProfileFromModel(t *testing.T) {
	r, err := Config{Model: "mistralai/Mixtral-8x7B-Instruct-v0.1"}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.Profile != "mixtral-8x7b-h100" || r.tp != 2 {
		t.Errorf("profile %s tp %d, want mixtral-8x7b-h100 with TP 2", r.Profile, r.tp)
	}
	r, err = Config{Model: "some/other-model"}.resolve()
	if err != nil || r.Profile != DefaultProfile {
		t.Errorf("unknown model: profile %s, %v; want %s", r.Profile, err, DefaultProfile)
	}
}

// TestBatchedTokensRefused checks the simulator refuses at start-up what
// vLLM's SchedulerConfig refuses: fewer batched tokens than sequences, and
// without chunked prefill fewer than the context.
func TestBatchedTokensRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		// the H100 default of 1024 sequences needs at least 1024 tokens a step
		{[]string{"--max-num-batched-tokens", "64"}, "max_num_batched_tokens (64) must be greater than or equal to max_num_seqs (1024)"},
		{[]string{"--profile", "tiny", "--max-num-seqs", "128", "--max-num-batched-tokens", "100"}, "max_num_batched_tokens (100) must be greater than or equal to max_num_seqs (128)"},
		{[]string{"--profile", "tiny", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "512"}, "max_num_batched_tokens (512) is smaller than max_model_len (1024)"},
		{[]string{"--profile", "tiny", "--enable-chunked-prefill=false", "--max-num-batched-tokens", "512"}, "is smaller than max_model_len"},
	} {
		if _, _, err := ParseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.err)
		}
	}
	for _, ok := range [][]string{
		{"--max-num-batched-tokens", "1024"},
		{"--profile", "tiny", "--enable-chunked-prefill", "--max-num-batched-tokens", "64"},
		{"--profile", "tiny", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "1024"},
	} {
		if _, _, err := ParseArgs(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}
