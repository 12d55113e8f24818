package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/sim"
)

func init() {
	register(&command{
		name:    "sim",
		summary: "run the vLLM-compatible simulator (no GPU needed)",
		usage:   "[MODEL] [flags]",
		help: `The simulator speaks vLLM's OpenAI-compatible API (/v1/completions,
/v1/chat/completions, /v1/models, /tokenize, /detokenize, /health, /version,
/metrics) and takes 'vllm serve' flags, so suites drive it exactly like the
vllm/vllm-openai image. Its engine batches continuously in real time with a
KV-cache budget; step times come from a profile of a model on a GPU.

Examples:
  llmgate sim                                   # Llama 3.1 8B on an H100, port 8000
  llmgate sim meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 64 --port 8001
  llmgate sim --profile llama-3.1-8b-a100 --gpu-memory-utilization 0.7
  llmgate sim --slowdown 1.2                    # plant a 20% regression
  llmgate sim --fail-rate 0.05 --stall 2s@30s   # 5% HTTP 500s, one 2 s freeze

` + sim.FlagHelp + `

Profiles:
` + profileList(),
		run: runSim,
	})
}

func profileList() string {
	var b strings.Builder
	for _, n := range sim.ProfileNames() {
		p, _ := sim.LookupProfile(n)
		fmt.Fprintf(&b, "  %-20s %s\n", n, p.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

func runSim(ctx context.Context, e *env, args []string) error {
	cfg, warnings, err := sim.ParseArgs(args)
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, w)
	}
	if errors.Is(err, sim.ErrHelp) {
		printHelp(e.stdout, commands["sim"])
		return nil
	}
	if err != nil {
		return usagef("sim: %v (see llmgate help sim)", err)
	}
	cfg.Log = e.stdout
	if v := e.getenv(sim.KeepAliveEnv); v != "" { // as vLLM reads it; llmgate's server targets set it
		if cfg.KeepAlive, err = sim.ParseKeepAlive(v); err != nil {
			return usagef("sim: %v", err)
		}
	}
	s, err := sim.New(cfg)
	if err != nil {
		return usagef("sim: %v", err)
	}
	if err := s.ListenAndServe(ctx); err != nil {
		return infraErr(fmt.Errorf("sim: %w", err))
	}
	return nil
}
