package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func TestRunTableGPUColumns(t *testing.T) {
	w, perToken := 662.5, 0.331
	f := &results.File{Runs: []results.Run{
		{Name: "gpu", Status: results.StatusOK, Summary: results.Summary{GPU: &results.GPUMetrics{Count: 2, Samples: 3, UtilMeanPercent: 66, UtilMaxPercent: 87, MemoryUsedMaxMiB: 70000, PowerMeanWatts: &w, PowerMaxWatts: &w,
			Energy: &results.Energy{Joules: 6625, PerToken: &perToken}}}},
		{Name: "nogpu", Status: results.StatusOK},
		{Name: "failed", Status: results.StatusFailed},
	}}
	var b strings.Builder
	if err := RunTable(&b, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for i, want := range [][]string{
		{"GPU util", "GPU mem", "GPU power", "J/token", "asserts"},
		{"66.0%", "70000 MiB", "662 W", "0.331"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d %q lacks %q", i, lines[i], w)
			}
		}
	}
	if n := len(strings.Fields(lines[3])); n != 20 {
		t.Errorf("failed row has %d cells, want 20 (15 + 4 GPU + asserts): %q", n, lines[3])
	}

	// Without GPU figures the table is as before.
	b.Reset()
	if err := RunTable(&b, &results.File{Runs: f.Runs[1:]}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "GPU") {
		t.Errorf("GPU columns without GPU figures:\n%s", b.String())
	}
}
