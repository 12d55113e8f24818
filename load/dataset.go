package load

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

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
				dw.entries = append(dw.entries, datasetEntry{prompt: q.Value, maxTokens: max(1, (len(a.Value)+3)/4)})
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

func isHuman(from string) bool {
	return from == "human" || from == "user"
}

// next takes entries in order across both phases, so that the measured
// phase repeats no warmup prompt unless the dataset is shorter than the run.
func (dw *datasetWorkload) next(s slot) *request {
	e := dw.entries[s.seq%len(dw.entries)]
	return dw.b.chat([]message{{Role: "user", Content: e.prompt}}, e.maxTokens, nil)
}
