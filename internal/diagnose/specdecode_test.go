package diagnose

import (
	"math"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// specRun is a run whose server decodes speculatively at rate (3 drafts
// a step) with a mean TPOT of tpot ms.
func specRun(tpot, rate float64) *results.Run {
	return &results.Run{Name: "r", Status: results.StatusOK, Summary: results.Summary{
		TPOT:   results.Stats{N: 100, Mean: tpot},
		Server: &results.ServerMetrics{SpecDecode: &results.SpecDecode{Drafts: 100, DraftTokens: 300, AcceptedTokens: 300 * rate, AcceptanceRate: rate, AcceptanceLength: 1 + 3*rate}},
	}}
}

// TestSpecDecodeFell fires when TPOT rose 20 % as the acceptance rate fell
// from 0.7 to 0.5 (lengths 3.1 and 2.5: a ratio of 1.24 explained), and
// not when only one of them moved, nor without speculative decoding.
func TestSpecDecodeFell(t *testing.T) {
	base, cur := specRun(10, 0.7), specRun(12, 0.5)
	hs := Against(cur, base)
	if len(hs) != 1 || hs[0].Kind != SpecDecodeFell || !kinds(hs)[SpecDecodeFell] {
		t.Fatalf("hints %+v, want one %s", hs, SpecDecodeFell)
	}
	if ev := hs[0].Evidence[3]; math.Abs(ev.Value-3.1/2.5) > 1e-12 {
		t.Errorf("explained ratio %v, want %v", ev.Value, 3.1/2.5)
	}
	ch := Changes(hs[0], base)
	if len(ch) != 3 || ch[0].Name != "tpot.mean" || ch[0].Base != 10 || ch[1].Name != "server.spec_decode.acceptance_rate" || ch[1].Base != 0.7 {
		t.Errorf("changes %+v: want tpot.mean 10 → 12, the rate 0.7 → 0.5 and the length", ch)
	}
	plain := specRun(12, 0.5)
	plain.Summary.Server.SpecDecode = nil
	for name, c := range map[string][2]*results.Run{
		"TPOT only":          {specRun(12, 0.7), base},
		"rate only":          {specRun(10.2, 0.5), base},
		"rate within 0.05":   {specRun(12, 0.66), base},
		"no spec decoding":   {plain, specRun(10, 0.7)},
		"no baseline":        {cur, nil},
		"faster, rate fell":  {specRun(9, 0.5), base},
		"TPOT rose, rate up": {specRun(12, 0.8), base},
	} {
		if hs := Against(c[0], c[1]); len(hs) != 0 {
			t.Errorf("%s: %+v, want no hint", name, hs)
		}
	}
	f := FileAgainst(&results.File{Runs: []results.Run{*cur}}, &results.File{Runs: []results.Run{*base}})
	if !kinds(f)[SpecDecodeFell] {
		t.Errorf("FileAgainst: %+v", f)
	}
}
