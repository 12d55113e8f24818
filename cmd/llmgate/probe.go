package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/internal/serverinfo"
)

func init() {
	register(&command{
		name:    "probe",
		summary: "show what a running server supports of what llmgate uses",
		usage:   "URL [flags]",
		help: `
Probe asks the OpenAI-compatible server at URL (its root, or the root plus
/v1 as the OpenAI SDK writes it) what it supports of what llmgate uses, and
prints one table: the models it lists and their context, whether it takes
token-id prompts, when a chat stream's role chunk arrives, what its streams
report in usage (a final count, a count on every chunk, or zeros on every
chunk as Ollama's completions do), whether ignore_eos and min_tokens are
honoured, /tokenize and the chat template's shared prefix, the /metrics
family (vLLM's, SGLang's or llama.cpp's names), the prefix-cache reset,
/health, /version and how long it keeps an idle connection open. Then it
says what llmgate does without each feature the server lacks.

It sends three short generation requests (24 tokens at most) and one
POST /reset_prefix_cache, which empties the server's prefix cache. 'llmgate
run' makes the same probe of every server it uses, once, and records what
was missing in the results file.

Examples:
  llmgate probe http://127.0.0.1:8000
  llmgate probe http://127.0.0.1:11434/v1 --model tiny
  llmgate probe https://gateway.example/openai/v1 --api-key "$OPENAI_API_KEY" --json

Exit codes: 0 the server answered; 2 bad usage; 3 it could not be reached.`,
		run: runProbe,
	})
}

func runProbe(ctx context.Context, e *env, args []string) error {
	exitOnInterrupt.Store(true) // nothing to clean up
	fs := newFlags(commands["probe"], e)
	model := fs.String("model", "", "probe generation with `MODEL` (default: the one model the server lists)")
	apiKey := fs.String("api-key", "", "send `KEY` as a bearer token (default: $OPENAI_API_KEY)")
	idle := fs.Duration("idle-wait", 10*time.Second, "watch an idle connection this `LONG` for the server to close it (0: skip)")
	asJSON := fs.Bool("json", false, "print the findings as JSON instead of a table")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("probe takes one server URL, got %d arguments (see llmgate help probe)", len(pos))
	}
	base, err := serverinfo.BaseURL(pos[0])
	if err != nil {
		return usagef("%v", err)
	}
	if *idle < 0 {
		return usagef("--idle-wait %v: want a duration of 0 or more", *idle)
	}
	key := *apiKey
	if key == "" {
		key = e.getenv("OPENAI_API_KEY")
	}
	e.mask.Add(key)
	f := serverinfo.Discover(ctx, serverinfo.Options{BaseURL: base, APIKey: key, Model: *model, IdleWait: *idle, Generate: true})
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(f); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%s\n\n", base)
		if err := report.FeaturesTable(e.stdout, f); err != nil {
			return err
		}
	}
	if f.ModelsError != "" && f.Health.Status == 0 {
		return infraErr(errors.New("the server at " + base + " could not be reached: " + f.ModelsError))
	}
	if *model != "" && f.ModelsError == "" {
		if _, _, ok := serverinfo.Find(f.Models, *model); !ok {
			return infraErr(fmt.Errorf("the server at %s does not serve model %q", base, *model))
		}
	}
	return nil
}
