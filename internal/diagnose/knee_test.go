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
			Summary: results.Summary{Requests: results.Requests{Completed: 100}, Throughput: results.Throughput{OutputTokens: tput[i]}, TTFT: results.Stats{N: 10, P95: ttft[i]}}}
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

// TestKneesOnlyOnLoad checks a knee is found only where the sweep sets the
// load: a sweep of burstiness at one rate (its runs' recorded load the
// same) has none, whatever its curve looks like ("knee at
// burstiness=0.5" was reported), while the same curve over the rate, or
// over a key of another name that sets the users, has one. A file without
// the recorded load goes by the key's name.
func TestKneesOnlyOnLoad(t *testing.T) {
	tput, ttft := []float64{100, 200, 400, 790, 800, 805}, []float64{20, 21, 23, 30, 90, 200}
	sweep := func(key string, load func(i int) *results.LoadConfig) *results.File {
		f := sweepFile(tput, ttft, nil)
		for i := range f.Runs {
			r := &f.Runs[i]
			v := strconv.FormatFloat(float64(i+1)/2, 'f', -1, 64)
			r.Params = map[string]string{key: v}
			r.Name = "u[" + key + "=" + v + "]"
			if load != nil {
				r.Load = load(i)
			}
		}
		return f
	}
	tests := []struct {
		name string
		f    *results.File
		knee bool
	}{
		{"burstiness at one rate", sweep("burstiness", func(i int) *results.LoadConfig {
			return &results.LoadConfig{Rate: 10, Burstiness: float64(i+1) / 2}
		}), false},
		{"gpu memory at one concurrency", sweep("gpu_memory_utilization", func(int) *results.LoadConfig { return &results.LoadConfig{Concurrency: 128} }), false},
		{"rate", sweep("rate", func(i int) *results.LoadConfig { return &results.LoadConfig{Rate: float64(i+1) / 2} }), true},
		{"users setting the concurrency", sweep("users", func(i int) *results.LoadConfig { return &results.LoadConfig{Concurrency: 1 << i} }), true},
		{"burstiness, no recorded load", sweep("burstiness", nil), false},
		{"concurrency, no recorded load", sweepFile(tput, ttft, nil), true},
	}
	for _, tt := range tests {
		k := Knees(tt.f)
		if got := len(k) == 1 && k[0].At != nil; got != tt.knee {
			t.Errorf("%s: knee found %v, want %v (%+v)", tt.name, got, tt.knee, k)
		}
	}
}

// TestKneesLeaveOutShortRuns checks that sweep points that never showed
// their level (at most results.LevelRequestsPerUser measured requests per
// user) are neither the knee nor the best passing run: scaled down, a
// concurrency-128 point of 52 requests ran about 20 at a time, and its
// curve said nothing about 128 users.
func TestKneesLeaveOutShortRuns(t *testing.T) {
	tput, ttft := []float64{100, 200, 400, 790, 800, 805}, []float64{20, 21, 23, 30, 90, 200}
	sweep := func(measured int) *results.File {
		f := sweepFile(tput, ttft, []bool{true, true, true, true, true, true})
		for i := range f.Runs {
			f.Runs[i].Load = &results.LoadConfig{Concurrency: 1 << i}
			f.Runs[i].Summary.Requests.Completed = measured
		}
		return f
	}
	// 100 requests: every point shows its level; the knee is at 8 users.
	if k := Knees(sweep(100)); len(k) != 1 || k[0].At == nil || k[0].At.Params["concurrency"] != "8" || k[0].BestPassing.Params["concurrency"] != "32" {
		t.Fatalf("knees with every level reached = %+v", k)
	}
	// 10 requests: 8, 16 and 32 users fell short; what is left is a
	// straight curve, without a knee, whose best run is 4 users.
	k := Knees(sweep(10))
	if len(k) != 1 || k[0].At != nil || k[0].BestPassing == nil || k[0].BestPassing.Params["concurrency"] != "4" {
		t.Fatalf("knees with 8-32 users short = %+v", k)
	}
}
