package results

import (
	"testing"

	"github.com/llmgate/llmgate/runspec"
)

// TestTraceWorkloadIsThePlans holds the results file's name of a trace
// replay to the plan's constant, which results cannot import.
func TestTraceWorkloadIsThePlans(t *testing.T) {
	if traceWorkload != string(runspec.WorkloadTrace) {
		t.Errorf("traceWorkload = %q, runspec.WorkloadTrace = %q", traceWorkload, runspec.WorkloadTrace)
	}
}
