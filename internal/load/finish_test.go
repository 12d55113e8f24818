package load

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// TestFinishReasonRecorded checks each record keeps the finish_reason its
// stream ended with, over real SSE from the simulator: a structured answer
// cut off at max_tokens is "length" (and fails the schema, so the request
// log lists it with that reason), a whole one "stop".
func TestFinishReasonRecorded(t *testing.T) {
	url := startSim(t, false)
	for _, tc := range []struct {
		name      string
		out       int
		want      string
		wantValid bool
	}{
		// {"name":...,"age":...} takes more than 4 tokens
		{name: "cut off", out: 4, want: "length", wantValid: false},
		{name: "whole", out: 200, want: "stop", wantValid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{
				Load: runspec.Load{Concurrency: 2, Requests: 6, Workload: runspec.Workload{
					Kind: runspec.WorkloadStructured, InputTokens: 192, OutputTokens: tc.out,
					Schema: `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"]}`,
				}},
				BaseURL: url,
				Model:   "llmgate/tiny-sim",
			}
			res, err := Run(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res.Records {
				if !r.OK() || r.FinishReason != tc.want || r.StructuredValid == nil || *r.StructuredValid != tc.wantValid {
					t.Errorf("record %d: ok %v finish_reason %q valid %v, want %q valid %v (%s)", i, r.OK(), r.FinishReason, r.StructuredValid, tc.want, tc.wantValid, r.Error)
				}
			}
			a, _ := res.Analyze(cfg, results.SummarizeOptions{})
			var want []string
			if !tc.wantValid {
				for range a.Requests.InvalidStructured {
					want = append(want, tc.want)
				}
				if len(want) == 0 {
					t.Fatal("no invalid answer in the request log")
				}
			}
			if diff := cmp.Diff(want, a.Requests.InvalidStructuredFinish); diff != "" {
				t.Errorf("invalid_structured_finish_reason (-want +got):\n%s", diff)
			}
		})
	}
}
