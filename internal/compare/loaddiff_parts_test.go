package compare

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func TestLoadDiffOfMixesAndStages(t *testing.T) {
	base := &results.LoadConfig{Workload: "random",
		Mix:    []results.MixShare{{Name: "chat", Weight: 3, Workload: "random", InputTokens: 256, OutputTokens: 128}, {Name: "rag", Weight: 1, Workload: "prefix", InputTokens: 1536, OutputTokens: 64, PrefixTokens: 1024}},
		Stages: []results.StageConfig{{Rate: 5, DurationS: 60}, {Rate: 20, DurationS: 60}}}
	cur := *base
	if d := loadDiff(base, &cur); d != nil {
		t.Fatalf("the same load differs: %v", d)
	}
	cur.Mix = append([]results.MixShare(nil), base.Mix...)
	cur.Mix[1].OutputTokens = 32
	cur.Stages = []results.StageConfig{{Rate: 5, DurationS: 60}, {Rate: 40, DurationS: 60}}
	d := strings.Join(loadDiff(base, &cur), "\n")
	for _, want := range []string{"rag weight 1 (prefix, 1536 in / 64 out tokens, 1024-token prefix) in the baseline", "1536 in / 32 out", "stages 1: 5 req/s 60 s; 2: 20 req/s 60 s in the baseline, 1: 5 req/s 60 s; 2: 40 req/s 60 s now"} {
		if !strings.Contains(d, want) {
			t.Errorf("load diff lacks %q:\n%s", want, d)
		}
	}
}
