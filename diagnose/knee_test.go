package diagnose

import (
	"strconv"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func sweepFile(tput, ttft []float64, pass []bool) *results.File {
	f := &results.File{}
	for i := range tput {
		c := strconv.Itoa(1 << i)
		r := results.Run{Name: "u[concurrency=" + c + "]", Scenario: "u", Status: results.StatusOK, Params: map[string]string{"concurrency": c},
			Summary: results.Summary{Requests: results.Requests{Completed: 10}, Throughput: results.Throughput{OutputTokens: tput[i]}, TTFT: results.Stats{N: 10, P95: ttft[i]}}}
		if pass != nil {
			r.Asserts = []results.AssertResult{{Name: "slo", Passed: pass[i]}}
		}
		f.Runs = append(f.Runs, r)
	}
	return f
}

func TestKnees(t *testing.T) {
	// Throughput saturates at 8 users while TTFT then climbs.
	f := sweepFile([]float64{100, 200, 400, 790, 800, 805}, []float64{20, 21, 23, 30, 90, 200}, []bool{true, true, true, true, false, false})
	k := Knees(f)
	if len(k) != 1 || k[0].At == nil || k[0].At.Params["concurrency"] != "8" || k[0].BestPassing == nil || k[0].BestPassing.Params["concurrency"] != "8" {
		t.Fatalf("knees = %+v", k)
	}
	// Latency and throughput growing together: no knee, and no asserts.
	if k := Knees(sweepFile([]float64{100, 200, 300}, []float64{10, 20, 30}, nil)); len(k) != 0 {
		t.Errorf("straight curve has knees: %+v", k)
	}
	// Asserts that never hold: a knee but no best passing run.
	k = Knees(sweepFile([]float64{100, 200, 400, 790, 800}, []float64{20, 21, 23, 30, 300}, []bool{false, false, false, false, false}))
	if len(k) != 1 || k[0].BestPassing != nil || k[0].At == nil {
		t.Errorf("knees = %+v", k)
	}
}
