package results

import (
	"math"
	"strings"
	"testing"
)

// TestMergeSpecDecode checks two blocks of an A/B run: the counts summed,
// the rates derived again from the sums.
func TestMergeSpecDecode(t *testing.T) {
	sd := NewSpecDecode(200, 600, 360, []float64{160, 120, 80})
	merged := mergeSpecDecode(sd, &SpecDecode{Drafts: 100, DraftTokens: 300, AcceptedTokens: 0, AcceptedPerPosition: []float64{0, 0, 0}})
	if math.Abs(merged.AcceptanceRate-0.4) > 1e-12 || math.Abs(merged.AcceptanceLength-2.2) > 1e-12 || math.Abs(merged.PositionRates[0]-160/300.0) > 1e-12 {
		t.Errorf("merged %+v: want rate 0.4 (360/900), length 2.2, position 0 at 160/300", merged)
	}
	if NewSpecDecode(0, 0, 0, nil) != nil {
		t.Error("a window without drafts has speculative decoding")
	}
}

// TestSpecDecodeCheck refuses absurd figures in a file.
func TestSpecDecodeCheck(t *testing.T) {
	bad := Summary{Server: &ServerMetrics{SpecDecode: &SpecDecode{Drafts: 1, DraftTokens: 3, AcceptedTokens: 1, AcceptanceRate: 1.5, AcceptanceLength: 0.5}}}
	if err := (&File{Runs: []Run{{Name: "r", Status: StatusOK, Summary: bad}}}).Check(); err == nil || !strings.Contains(err.Error(), "acceptance_rate") || !strings.Contains(err.Error(), "acceptance_length") {
		t.Errorf("check of absurd figures: %v", err)
	}
}
