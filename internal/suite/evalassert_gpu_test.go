package suite

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func TestWhyMissingGPU(t *testing.T) {
	if got := whyMissing([]string{"gpu.util.mean", "gpu.power.max"}, &results.Summary{}); !strings.Contains(got, "gpus") || strings.Count(got, ";") != 0 {
		t.Errorf("whyMissing(gpu.*) = %q, want one reason naming gpus", got)
	}
}

// TestWhyMissingITL checks that an ITL assert of a run whose answers each
// came in one chunk says so, rather than that the run produced no value.
func TestWhyMissingITL(t *testing.T) {
	sum := &results.Summary{Requests: results.Requests{Completed: 10}, TTFT: results.Stats{N: 10, Mean: 5}}
	if got := whyMissing([]string{"itl.p99"}, sum); !strings.Contains(got, "in one chunk") {
		t.Errorf("whyMissing(itl.p99) = %q, want it to say every answer came in one chunk", got)
	}
}
