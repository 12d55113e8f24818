package load

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// writeShareGPT writes a ShareGPT file of (prompt words, answer bytes) entries.
func writeShareGPT(t *testing.T, entries [][2]int) string {
	t.Helper()
	type turn struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	var convs []map[string][]turn
	for _, e := range entries {
		convs = append(convs, map[string][]turn{"conversations": {
			{From: "human", Value: strings.TrimSpace(strings.Repeat("w ", e[0]))},
			{From: "gpt", Value: strings.Repeat("a ", e[1]/2)}}})
	}
	b, _ := json.Marshal(convs)
	p := filepath.Join(t.TempDir(), "sharegpt.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDatasetFit checks dataset entries against a context of 64 tokens on
// a server that counts a word a token: counted and sent (and refused)
// without a filter, dropped with one; vllm_bench also drops what vllm
// bench serve drops (here a prompt of 2 tokens).
func TestDatasetFit(t *testing.T) {
	// prompt words, answer bytes (max_tokens = bytes/4): 10+8 fits, 60+8
	// does not, 2+8 fits but is too short for vllm bench
	path := writeShareGPT(t, [][2]int{{10, 32}, {60, 32}, {2, 32}})
	for _, tc := range []struct {
		filter            string
		unfit, dropped    int
		requests, refused int
	}{
		{"", 1, 0, 6, 2},
		{runspec.DatasetFilterContext, 1, 1, 6, 0},
		{runspec.DatasetFilterVLLMBench, 1, 2, 6, 0},
	} {
		srv := fakeserver.Start(t, fakeserver.VLLM("m", 64))
		cfg := Config{Load: runspec.Load{Concurrency: 1, Requests: 6, Seed: 1,
			Workload: runspec.Workload{Kind: runspec.WorkloadDataset, DatasetPath: path, DatasetFilter: tc.filter}},
			BaseURL: srv.URL, Model: "m", RunName: "r", Server: ServerFeatures{MaxModelLen: 64}}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.filter, err)
		}
		f := res.Dataset
		if f == nil || f.Method != results.CountTokenize || f.Unfit != tc.unfit || f.Dropped != tc.dropped {
			t.Errorf("%q: fit %+v, want %d unfit, %d dropped, by tokenize", tc.filter, f, tc.unfit, tc.dropped)
		}
		refused := 0
		for _, r := range res.Records {
			if strings.HasPrefix(r.Error, "http 400") {
				refused++
			}
		}
		if len(res.Records) != tc.requests || refused != tc.refused {
			t.Errorf("%q: %d requests, %d refused; want %d and %d", tc.filter, len(res.Records), refused, tc.requests, tc.refused)
		}
	}
	// every entry dropped: the run says so before sending anything
	path = writeShareGPT(t, [][2]int{{60, 32}})
	srv := fakeserver.Start(t, fakeserver.VLLM("m", 64))
	_, err := Run(context.Background(), Config{Load: runspec.Load{Concurrency: 1, Requests: 2,
		Workload: runspec.Workload{Kind: runspec.WorkloadDataset, DatasetPath: path, DatasetFilter: runspec.DatasetFilterContext}},
		BaseURL: srv.URL, Model: "m", Server: ServerFeatures{MaxModelLen: 64}}, nil)
	if err == nil || !strings.Contains(err.Error(), "left none of 1 entries (1 cannot fit the model's context of 64 tokens)") {
		t.Errorf("all dropped: %v", err)
	}
}
