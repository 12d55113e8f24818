package load

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/llmgate/llmgate/internal/dataset"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// datasetWorkload sends a file's prompts. A ShareGPT-format file goes over
// the chat API: each entry's first human turn is the prompt, and the
// length of the answer that follows it sets max_tokens (estimated as one
// token per 4 bytes, since no tokenizer is at hand; the server's usage
// reports the true counts). A prompt file of llmgate's (JSONL or CSV) is
// sent as written: a prompt to /v1/completions (to the chat API as a user
// message with chat = true), messages to the chat API, each asking for
// its output_tokens, else the workload's output_tokens, else
// defaultDatasetAnswer. Entries are used in a seeded shuffled order,
// cycling when the run needs more.
type datasetWorkload struct {
	b       bodyMaker
	chat    bool
	entries []datasetEntry
}

type datasetEntry struct {
	prompt    string
	messages  []message // a chat's messages, sent as written; nil for a prompt
	answer    string    // the dataset's answer, whose length sets maxTokens; "" for a prompt file's
	maxTokens int
	sharegpt  bool // from a ShareGPT file: the prompt is a chat's user message
}

// defaultDatasetAnswer is the answer a prompt file's entry asks for when
// neither it nor the workload says: the synthetic workloads' default.
const defaultDatasetAnswer = 128

// text is what the entry's prompt holds, for counting its tokens.
func (e *datasetEntry) text() string {
	if e.messages == nil {
		return e.prompt
	}
	parts := make([]string, len(e.messages))
	for i, m := range e.messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// isChat reports whether the entry goes to the chat API.
func (e *datasetEntry) isChat(chat bool) bool { return e.sharegpt || e.messages != nil || chat }

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
	dw := &datasetWorkload{b: b, chat: w.Chat}
	if w.DatasetFormat != "" && w.DatasetFormat != dataset.FormatShareGPT {
		entries, err := dataset.ReadFile(w.DatasetPath, w.DatasetFormat)
		if err != nil {
			return nil, fmt.Errorf("dataset workload: %w", err)
		}
		answer := w.OutputTokens
		if answer <= 0 {
			answer = defaultDatasetAnswer
		}
		for _, e := range entries {
			de := datasetEntry{prompt: e.Prompt, maxTokens: answer}
			if e.OutputTokens > 0 {
				de.maxTokens = e.OutputTokens
			}
			for _, m := range e.Messages {
				de.messages = append(de.messages, message{Role: m.Role, Content: m.Content})
			}
			dw.entries = append(dw.entries, de)
		}
		dw.shuffle(seed)
		return dw, nil
	}
	raw, err := os.ReadFile(w.DatasetPath)
	if err != nil {
		return nil, fmt.Errorf("dataset workload: %w", err)
	}
	var convs []shareGPT
	if err := json.Unmarshal(raw, &convs); err != nil {
		return nil, fmt.Errorf("dataset workload: %s is not a ShareGPT JSON array: %w", w.DatasetPath, err)
	}
	for _, c := range convs {
		for i := 0; i+1 < len(c.Conversations); i++ {
			q, a := c.Conversations[i], c.Conversations[i+1]
			if isHuman(q.From) && !isHuman(a.From) && strings.TrimSpace(q.Value) != "" && a.Value != "" {
				dw.entries = append(dw.entries, datasetEntry{prompt: q.Value, answer: a.Value, maxTokens: estimateTokens(a.Value), sharegpt: true})
				break
			}
		}
	}
	if len(dw.entries) == 0 {
		return nil, fmt.Errorf("dataset workload: %s has no conversation with a human turn followed by an answer", w.DatasetPath)
	}
	dw.shuffle(seed)
	return dw, nil
}

// shuffle puts the entries in the seed's order.
func (dw *datasetWorkload) shuffle(seed int64) {
	r := rng(promptKey{seed: seed}, 6, 0)
	r.Shuffle(len(dw.entries), func(i, j int) { dw.entries[i], dw.entries[j] = dw.entries[j], dw.entries[i] })
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
	switch {
	case e.messages != nil:
		return dw.b.chat(e.messages, e.maxTokens, nil)
	case e.isChat(dw.chat):
		return dw.b.chat([]message{{Role: "user", Content: e.prompt}}, e.maxTokens, nil)
	}
	return dw.b.completion(e.prompt, e.maxTokens)
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
	w := cfg.Workload
	f := &results.DatasetFit{Filter: w.DatasetFilter, Context: cfg.Server.MaxModelLen, Method: results.CountTokenize,
		MaxPromptTokens: w.MaxPromptTokens, MaxTotalTokens: w.MaxTotalTokens}
	filtering := f.Filter != "" || f.MaxPromptTokens > 0 || f.MaxTotalTokens > 0
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
		f.Method = results.CountEstimate
		return estimateTokens(text)
	}
	kept := make([]datasetEntry, 0, len(dw.entries))
	done := func() bool {
		if filtering {
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
		prompt := -1 // the prompt's tokens as sent, counted once when needed
		sent := func() int {
			if prompt < 0 {
				prompt = count(e.isChat(dw.chat), e.text())
			}
			return prompt
		}
		if f.Context > 0 {
			if sent() >= f.Context || sent()+e.maxTokens > f.Context {
				f.Unfit++
				drop = f.Filter != ""
			}
		}
		if !drop && (f.MaxPromptTokens > 0 && sent() > f.MaxPromptTokens || f.MaxTotalTokens > 0 && sent()+e.maxTokens > f.MaxTotalTokens) {
			drop = true
		}
		if !drop && f.Filter == runspec.DatasetFilterVLLMBench {
			p, a := count(false, e.text()), e.maxTokens
			if e.answer != "" {
				a = count(false, e.answer)
			}
			drop = p < vllmBenchMinLen || a < vllmBenchMinLen || p > vllmBenchMaxPromptLen || p+a > vllmBenchMaxTotalLen
		}
		if drop {
			f.Dropped++
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		var why []string
		if f.Filter != "" {
			why = append(why, fmt.Sprintf("dataset_filter = %q", f.Filter))
		}
		if f.MaxPromptTokens > 0 {
			why = append(why, fmt.Sprintf("max_prompt_tokens = %d", f.MaxPromptTokens))
		}
		if f.MaxTotalTokens > 0 {
			why = append(why, fmt.Sprintf("max_total_tokens = %d", f.MaxTotalTokens))
		}
		return f, fmt.Errorf("dataset workload: %s left none of %d entries (%d cannot fit the model's context of %d tokens)", strings.Join(why, " and "), f.Checked, f.Unfit, f.Context)
	}
	dw.entries = kept
	return f, nil
}
