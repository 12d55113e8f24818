package report

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

func runTableFile() *results.File {
	return comparetest.File(results.Environment{Model: "m"},
		comparetest.RunSpec{Name: "chat", TTFT: 120, TPOT: 9, E2EL: 2000, OutTokPerSec: 1800, ReqPerSec: 4.2, Seed: 1,
			Asserts: []results.AssertResult{{Name: "ttft", Passed: true}, {Name: "tpot", Passed: true}}},
		comparetest.RunSpec{Name: "sweep[concurrency=64]", Scenario: "sweep", TTFT: 950, TPOT: 31, E2EL: 8000, OutTokPerSec: 9100, ReqPerSec: 21.5, Failed: 3, Seed: 2,
			Asserts: []results.AssertResult{{Name: "knee", Passed: false}}},
		comparetest.RunSpec{Name: "bursty", Status: results.StatusInvalid, TTFT: 80, TPOT: 8, E2EL: 1000, OutTokPerSec: 900, ReqPerSec: 7.1, Seed: 3},
		comparetest.RunSpec{Name: "memory[gpu_memory_utilization=0.7]", Scenario: "memory", Status: results.StatusFailed, Seed: 4},
	)
}

func TestRunTable(t *testing.T) {
	var b strings.Builder
	if err := RunTable(&b, runTableFile()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	checkGolden(t, "runtable.txt", got)
	// A failed assert must be visible without reading the golden file.
	if !strings.Contains(got, "0/1 FAIL") {
		t.Errorf("failed assert not flagged:\n%s", got)
	}
}

// TestRunTableEmptyAnswers checks that the answers that ended before any
// text are counted in the ok column.
func TestRunTableEmptyAnswers(t *testing.T) {
	f := runTableFile()
	f.Runs[0].Summary.Requests.EmptyAnswers = 25
	var b strings.Builder
	if err := RunTable(&b, f); err != nil {
		t.Fatal(err)
	}
	if want := "(25 empty)"; !strings.Contains(b.String(), want) {
		t.Errorf("run table lacks %q:\n%s", want, b.String())
	}
}
