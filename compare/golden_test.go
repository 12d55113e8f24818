package compare

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/compare/comparetest"
	"github.com/llmgate/llmgate/results"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/compare")

// TestVerdictsGolden pins the whole JSON of a comparison with a regression,
// an inconclusive run, an invalid run, new and missing runs and a changed
// environment, so any change to a statistic or a verdict shows in review.
func TestVerdictsGolden(t *testing.T) {
	env := func(v string) results.Environment {
		return results.Environment{Image: "vllm/vllm-openai:" + v, VLLMVersion: v, GPU: "H100", Model: "m"}
	}
	invalid := spec("bursty", 100, 5)
	invalid.Status = results.StatusInvalid
	base := comparetest.File(env("v0.10.2"), spec("chat", 100, 1), spec("batch", 400, 2), spec("bursty", 100, 3), spec("retired", 100, 4))
	cur := comparetest.File(env("v0.11.0"), spec("chat", 140, 11), spec("batch", 450, 12), invalid, spec("added", 100, 14))
	got, err := json.MarshalIndent(Compare(base, cur, DefaultConfig()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "testdata", "compare", "verdicts.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)+"\n"); diff != "" {
		t.Errorf("verdicts differ from %s (-want +got):\n%s", path, diff)
	}
}
