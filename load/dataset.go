package load

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// datasetWorkload replays a ShareGPT-format file over the chat API: each
// entry's first human turn is the prompt, and the length of the answer that
// follows it sets max_tokens (estimated as one token per 4 bytes, since no
// tokenizer is at hand; the server's usage reports the true counts). Entries
// are used in a seeded shuffled order, cycling when the run needs more.
type datasetWorkload struct {
	b       bodyMaker
	entries []datasetEntry
}

type datasetEntry struct {
	prompt    string
	answer    string // the dataset's answer, whose length sets maxTokens
	maxTokens int
}

// shareGPT is one conversation of a ShareGPT file.
type shareGPT struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

func newDatasetWorkload(w runspec.Workload, seed int64, b bodyMaker) (*datasetWorkload, error) {
	if w.DatasetPath == "" {
		return nil, fmt.Errorf("dataset workload: no dataset file given")
	}
	raw, err := os.ReadFile(w.DatasetPath)
	if err != nil {
		return nil, fmt.Errorf("dataset workload: %w", err)
	}
	var convs []shareGPT
	if err := json.Unmarshal(raw, &convs); err != nil {
		return nil, fmt.Errorf("dataset workload: %s is not a ShareGPT JSON array: %w", w.DatasetPath, err)
	}
	dw := &datasetWorkload{b: b}
	for _, c := range convs {
		for i := 0; i+1 < len(c.Conversations); i++ {
			q, a := c.Conversations[i], c.Conversations[i+1]
			if isHuman(q.From) && !isHuman(a.From) && strings.TrimSpace(q.Value) != "" && a.Value != "" {
				dw.entries = append(dw.entries, datasetEntry{prompt: q.Value, answer: a.Value, maxTokens: estimateTokens(a.Value)})
				break
			}
		}
	}
	if len(dw.entries) == 0 {
		return nil, fmt.Errorf("dataset workload: %s has no conversation with a human turn followed by an answer", w.DatasetPath)
	}
	r := rng(promptKey{seed: seed}, 6, 0)
	r.Shuffle(len(dw.entries), func(i, j int) { dw.entries[i], dw.entries[j] = dw.entries[j], dw.entries[i] })
	return dw, nil
}

// estimateTokens is a text's length at a token per 4 bytes, at least 1.
func estimateTokens(s string) int { return max(1, (len(s)+3)/4) }

func isHuman(from string) bool {
	return from == "human" || from == "user"
}

// next takes entries in order across both phases, so that the measured
// phase repeats no warmup prompt unless the dataset is shorter than the run.
func (dw *datasetWorkload) next(s slot) *request {
	e := dw.entries[s.seq%len(dw.entries)]
	return dw.b.chat([]message{{Role: "user", Content: e.prompt}}, e.maxTokens, nil)
}

// vllm bench serve's bounds for ShareGPT entries (its is_valid_sequence):
// a prompt or an answer under 4 tokens, a prompt over 1024, or both over
// 2048 are left out.
const (
	vllmBenchMinLen       = 4
	vllmBenchMaxPromptLen = 1024
	vllmBenchMaxTotalLen  = 2048
	// maxFitChecks bounds the /tokenize calls of a fit check: entries
	// past it are estimated.
	maxFitChecks = 4096
)

// fit checks the entries the run will use against the model's context
// (cfg.Server.MaxModelLen, when known) and, with the vllm_bench filter,
// vllm bench serve's bounds, in the order the run takes them; with a
// filter, it drops those that fail. Lengths come from the server's
// /tokenize when it has one (the prompt as the chat request sends it, for
// the context; prompt and answer as plain text, for vllm bench's bounds,
// which its tokenizer counts so), else from a token per 4 bytes.
func (dw *datasetWorkload) fit(ctx context.Context, cfg Config) (*results.DatasetFit, error) {
	f := &results.DatasetFit{Filter: cfg.Workload.DatasetFilter, Context: cfg.Server.MaxModelLen, Method: "tokenize"}
	want := len(dw.entries)
	if cfg.Requests > 0 {
		want = min(want, cfg.Requests+cfg.Warmup)
	}
	useTokenize, calls := !cfg.Server.NoTokenize, 0
	count := func(chat bool, text string) int {
		if useTokenize && calls < maxFitChecks {
			calls++
			if n, err := tokenize(ctx, cfg, chat, text); err == nil {
				return n
			}
			useTokenize = false // no /tokenize after all: estimate the rest
		}
		f.Method = "estimate"
		return estimateTokens(text)
	}
	kept := make([]datasetEntry, 0, len(dw.entries))
	done := func() bool {
		if f.Filter != "" {
			return len(kept) >= want // enough entries kept
		}
		return f.Checked >= want // every entry the run uses looked at
	}
	for i, e := range dw.entries {
		if done() {
			kept = append(kept, dw.entries[i:]...)
			break
		}
		f.Checked++
		drop := false
		if f.Context > 0 {
			prompt := count(true, e.prompt)
			if prompt >= f.Context || prompt+e.maxTokens > f.Context {
				f.Unfit++
				drop = f.Filter != ""
			}
		}
		if !drop && f.Filter == runspec.DatasetFilterVLLMBench {
			p, a := count(false, e.prompt), count(false, e.answer)
			drop = p < vllmBenchMinLen || a < vllmBenchMinLen || p > vllmBenchMaxPromptLen || p+a > vllmBenchMaxTotalLen
		}
		if drop {
			f.Dropped++
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return f, fmt.Errorf("dataset workload: dataset_filter = %q left none of %d entries (%d cannot fit the model's context of %d tokens)", f.Filter, f.Checked, f.Unfit, f.Context)
	}
	dw.entries = kept
	return f, nil
}
