package sim

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// ErrHelp is returned by ParseArgs when -h or --help is among the args.
var ErrHelp = flag.ErrHelp

// vllmBoolFlags are vLLM flags that take no value; an unknown flag not in
// this list swallows the next argument when that does not start with "-".
var vllmBoolFlags = map[string]bool{
	"enforce-eager": true, "trust-remote-code": true, "disable-log-requests": true,
	"disable-log-stats": true, "enable-log-requests": true,
	"enable-auto-tool-choice": true, "disable-frontend-multiprocessing": true,
	"enable-lora": true, "enable-prompt-tokens-details": true, "enable-force-include-usage": true,
	"disable-fastapi-docs": true, "enable-server-load-tracking": true, "headless": true,
	"disable-custom-all-reduce": true, "enable-sleep-mode": true, "async-scheduling": true,
	"disable-uvicorn-access-log": true, "enable-request-id-headers": true,
	"enable-log-outputs": true, "enable-eplb": true, "enable-dbo": true,
	"skip-tokenizer-init": true, "enable-prompt-embeds": true, "return-tokens-as-token-ids": true,
	"disable-sliding-window": true, "disable-cascade-attn": true, "enable-tokenizer-info-endpoint": true,
}

// FlagHelp is the flag reference `llmgate sim --help` prints.
const FlagHelp = `vLLM flags (same names and meaning as 'vllm serve'):
  MODEL | --model NAME            model name or path (default: the profile's model)
  --served-model-name NAME        name clients send as "model" (default: MODEL)
  --host HOST                     listen address (default 0.0.0.0)
  --port PORT                     listen port (default 8000)
  --gpu-memory-utilization F      fraction of GPU memory for weights+activations+KV (default 0.9)
  --max-num-seqs N                max sequences in a batch (default: vLLM's for the GPU)
  --max-num-batched-tokens N      token budget of one engine step (chunked prefill); at least
                                  --max-num-seqs, as vLLM requires
  --[no-]enable-chunked-prefill   accepted; without it --max-num-batched-tokens must be at least
                                  --max-model-len (vLLM's check); prefills are chunked always
  --max-model-len N               max prompt+output tokens (default: the model's)
  --enable-prefix-caching         reuse KV blocks of shared prefixes (default on)
  --no-enable-prefix-caching      turn prefix caching off
  --kv-cache-dtype auto|fp8       KV element type; fp8 doubles the cache's token capacity
  --tensor-parallel-size N, -tp N number of GPUs (default: the profile's)
  --enable-expert-parallel        shard MoE experts across GPUs (all-to-all)
  --block-size N                  KV-cache block size in tokens (default 16)
  --api-key KEY                   require "Authorization: Bearer KEY" on /v1
  --enable-auto-tool-choice       allow tool_choice "auto" (the default with tools), as vLLM needs;
                                  a request offering tools is answered with one call in vLLM's
                                  delta shape (tool_choice "none": text)
  --speculative-config JSON       speculative decoding with num_speculative_tokens draft tokens a
                                  step, e.g. '{"method": "ngram", "num_speculative_tokens": 3}'
                                  (the method is accepted; drafting costs nothing); exports
                                  vllm:spec_decode_* as vLLM does
  other vLLM flags                accepted and ignored, with a warning on stderr

Simulator flags:
  --profile NAME                  simulated model+GPU (default: the model's H100 profile
                                  if there is one, else llama-3.1-8b-h100)
  --seed N                        seed for generated tokens (default 0)
  --slowdown F                    multiply every step's time, e.g. 1.2 = 20% slower
  --time-scale F                  run the model's clock faster than the wall clock: every modelled
                                  duration (steps, stalls, --startup-delay) takes F times as long,
                                  0 < F <= 1 (default 1, real time); keep-alive timeouts are not
                                  scaled, and /metrics reports wall seconds (a tenth at 0.1)
  --fail-rate F                   answer this fraction of generation requests with HTTP 500
  --invalid-structured-rate F     cut off this fraction of structured-output answers half-way,
                                  so they break their schema (chosen from the seed and request)
  --reasoning-tokens N            reason for N tokens before each chat answer, streamed in
                                  delta.reasoning_content as vLLM's reasoning parsers do
  --spec-acceptance-rate F        fraction of draft tokens accepted (default 0.6), each position
                                  accepted given the earlier ones were (rates fall off by position)
  --per-seq-overhead DUR          cost of a step per sequence it serves, replacing the profile's
                                  (a test knob: 2ms makes decode steps grow with the batch)
  --stall DUR@AT[/EVERY]          freeze the engine for DUR, AT after the first request,
                                  repeating every EVERY if given (e.g. 2s@10s, 500ms@5s/30s)
  --startup-delay DUR             take DUR before listening, printing vLLM's log lines for
                                  weights loaded, torch.compile and CUDA graph capture`

// ParseArgs parses vLLM's `vllm serve` command line plus the simulator's
// flags. Flags may come before or after the positional model, as
// --flag value or --flag=value, with dashes or underscores. Unknown vLLM
// flags are skipped and reported in the returned warnings.
func ParseArgs(args []string) (Config, []string, error) {
	var c Config
	var warnings []string
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" || isNumber(a) {
			positional = append(positional, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if n, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = n, v, true
		}
		name = strings.ReplaceAll(name, "_", "-")
		if name == "h" || name == "help" {
			return c, warnings, ErrHelp
		}
		// next returns the flag's value, from "=value" or the next argument.
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		boolean := func(on bool) (bool, error) {
			if !hasValue {
				return on, nil
			}
			b, err := strconv.ParseBool(value)
			if err != nil {
				return false, fmt.Errorf("flag --%s: %q is not true or false", name, value)
			}
			return b == on, nil
		}
		var err error
		switch name {
		case "model":
			c.Model, err = next()
		case "served-model-name":
			c.ServedModelName, err = next()
		case "host":
			c.Host, err = next()
		case "port":
			c.Port, err = intFlag(name, next)
		case "gpu-memory-utilization":
			c.GPUMemoryUtilization, err = floatFlag(name, next)
		case "max-num-seqs":
			c.MaxNumSeqs, err = intFlag(name, next)
		case "max-num-batched-tokens":
			c.MaxNumBatchedTokens, err = intFlag(name, next)
		case "max-model-len":
			var s string
			if s, err = next(); err == nil {
				c.MaxModelLen, err = ParseModelLen(s)
			}
		case "enable-prefix-caching":
			var on bool
			on, err = boolean(true)
			c.NoPrefixCaching = !on
		case "no-enable-prefix-caching":
			var on bool
			on, err = boolean(true)
			c.NoPrefixCaching = on
		case "enable-chunked-prefill":
			var on bool
			on, err = boolean(true)
			c.NoChunkedPrefill = !on
		case "no-enable-chunked-prefill":
			var on bool
			on, err = boolean(true)
			c.NoChunkedPrefill = on
		case "kv-cache-dtype":
			c.KVCacheDtype, err = next()
		case "tensor-parallel-size", "tp":
			c.TensorParallelSize, err = intFlag(name, next)
		case "enable-expert-parallel":
			c.EnableExpertParallel, err = boolean(true)
		case "no-enable-expert-parallel":
			var on bool
			on, err = boolean(true)
			c.EnableExpertParallel = !on
		case "block-size":
			c.BlockSize, err = intFlag(name, next)
		case "api-key":
			c.APIKey, err = next()
		case "profile":
			c.Profile, err = next()
		case "seed":
			var s string
			if s, err = next(); err == nil {
				c.Seed, err = strconv.ParseInt(s, 10, 64)
				if err != nil {
					err = fmt.Errorf("flag --seed: %q is not an integer", s)
				}
			}
		case "slowdown":
			c.Slowdown, err = floatFlag(name, next)
		case "time-scale":
			if c.TimeScale, err = floatFlag(name, next); err == nil {
				err = checkTimeScale(c.TimeScale) // 0 would mean the default here
			}
		case "fail-rate":
			c.FailRate, err = floatFlag(name, next)
		case "invalid-structured-rate":
			c.InvalidStructuredRate, err = floatFlag(name, next)
		case "reasoning-tokens":
			c.ReasoningTokens, err = intFlag(name, next)
		case "enable-auto-tool-choice":
			c.EnableAutoToolChoice, err = boolean(true)
		case "speculative-config":
			var v string
			if v, err = next(); err == nil {
				c.SpecTokens, err = parseSpeculativeConfig(v)
			}
		case "num-speculative-tokens": // vLLM's flag before --speculative-config
			c.SpecTokens, err = intFlag(name, next)
		case "spec-acceptance-rate":
			var f float64
			if f, err = floatFlag(name, next); err == nil {
				c.SpecAcceptanceRate = &f
			}
		case "per-seq-overhead":
			c.PerSeqOverhead, err = next()
		case "stall":
			c.Stall, err = next()
		case "startup-delay":
			var v string
			if v, err = next(); err == nil {
				c.StartupDelay, err = parseStartupDelay(v)
			}
		default:
			// An unknown vLLM flag: skip it and its value, if it has one.
			if !hasValue && !vllmBoolFlags[name] && !strings.HasPrefix(name, "no-") &&
				i+1 < len(args) && (!strings.HasPrefix(args[i+1], "-") || isNumber(args[i+1])) {
				i++
			}
			warnings = append(warnings, fmt.Sprintf("WARNING: the simulator ignores vLLM flag --%s (accepted for compatibility)", name))
		}
		if err != nil {
			return c, warnings, err
		}
	}
	if c.NoChunkedPrefill {
		warnings = append(warnings, "WARNING: the simulator prefills in chunks even with chunked prefill turned off (vLLM's start-up check for it is made)")
	}
	switch len(positional) {
	case 0:
	case 1:
		if c.Model != "" && c.Model != positional[0] {
			return c, warnings, fmt.Errorf("model given twice: %q and --model %q", positional[0], c.Model)
		}
		c.Model = positional[0]
	default:
		return c, warnings, fmt.Errorf("unexpected arguments %q: give one model, then flags", positional[1:])
	}
	if _, err := c.resolve(); err != nil {
		return c, warnings, err
	}
	return c, warnings, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func intFlag(name string, next func() (string, error)) (int, error) {
	s, err := next()
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("flag --%s: %q is not an integer", name, s)
	}
	return n, nil
}

func floatFlag(name string, next func() (string, error)) (float64, error) {
	s, err := next()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("flag --%s: %q is not a number", name, s)
	}
	return f, nil
}

// ParseModelLen reads a --max-model-len value in vLLM's forms: 4096, 4k, 1m
// (k = 1000 and m = 1e6, K = 1024 and M = 1024*1024).
func ParseModelLen(s string) (int, error) {
	mult := 1
	t := s
	switch {
	case strings.HasSuffix(s, "k"):
		mult, t = 1000, s[:len(s)-1]
	case strings.HasSuffix(s, "K"):
		mult, t = 1024, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		mult, t = 1000000, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, t = 1024*1024, s[:len(s)-1]
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return 0, errors.New("flag --max-model-len: " + strconv.Quote(s) + " is not a token count")
	}
	return n * mult, nil
}
