package compare

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/internal/golden"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// TestVerdictsGolden pins the whole JSON of a comparison with a regression,
// an inconclusive run, an invalid run, new and missing runs and a changed
// environment, so any change to a statistic or a verdict shows in review.
func TestVerdictsGolden(t *testing.T) {
	env := func(v string) results.Environment {
		return results.Environment{Image: untrusted.String("vllm/vllm-openai:" + v), VLLMVersion: untrusted.String(v), GPU: "H100", Model: "m"}
	}
	invalid := spec("bursty", 100, 5)
	invalid.Status = results.StatusInvalid
	base := comparetest.File(env("v0.10.2"), spec("chat", 100, 1), spec("batch", 400, 2), spec("bursty", 100, 3), spec("retired", 100, 4))
	cur := comparetest.File(env("v0.11.0"), spec("chat", 140, 11), spec("batch", 450, 12), invalid, spec("added", 100, 14))
	got, err := json.MarshalIndent(Compare(base, cur, DefaultConfig()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("..", "..", "testdata", "compare", "verdicts.json"), string(got)+"\n")
}
