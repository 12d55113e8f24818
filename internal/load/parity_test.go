package load

import (
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// parityFixture is testdata/parity/fixture.json, made by gen.py with numpy
// and the formulas of `vllm bench serve`.
type parityFixture struct {
	Goodput  map[string]float64 `json:"goodput_ms"`
	Requests []struct {
		SentNS      int64   `json:"sent_ns"`
		ChunksNS    []int64 `json:"chunks_ns"`
		InputTokens int     `json:"input_tokens"`
		Failed      bool    `json:"failed"`
	} `json:"requests"`
	Expected struct {
		Completed     int                `json:"completed"`
		Failed        int                `json:"failed"`
		TotalInput    int64              `json:"total_input"`
		TotalOutput   int64              `json:"total_output"`
		Duration      float64            `json:"duration_s"`
		ReqThroughput float64            `json:"request_throughput"`
		OutThroughput float64            `json:"output_throughput"`
		TotThroughput float64            `json:"total_token_throughput"`
		Goodput       float64            `json:"request_goodput"`
		TTFT          map[string]float64 `json:"ttft_ms"`
		TPOT          map[string]float64 `json:"tpot_ms"`
		ITL           map[string]float64 `json:"itl_ms"`
		E2EL          map[string]float64 `json:"e2el_ms"`
	} `json:"expected"`
}

// TestMetricParityWithVLLM feeds the fixture's chunk timings through the
// same streamTimer the streaming client uses, then results.Summarize, and checks
// every figure against what vLLM's calculate_metrics gives for them.
func TestMetricParityWithVLLM(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/parity/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx parityFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	origin := time.Unix(0, 0)
	var recs []results.Record
	for i, r := range fx.Requests {
		sent := origin.Add(time.Duration(r.SentNS))
		var tr streamTimer
		tr.reset(sent, len(r.ChunksNS), false)
		for k, c := range r.ChunksNS {
			ch := chunk{choices: true, usage: true, promptTokens: r.InputTokens, completionTokens: k + 1}
			tr.observe(origin.Add(time.Duration(c)), &ch)
		}
		rec := results.Record{Seq: i, Scheduled: time.Duration(r.SentNS), Sent: time.Duration(r.SentNS),
			Finished: time.Duration(r.ChunksNS[len(r.ChunksNS)-1])}
		tr.fill(&rec)
		if r.Failed {
			rec.Error, rec.ErrorKind = "planted failure", results.ErrorHTTP
		}
		recs = append(recs, rec)
	}
	s := results.Summarize(recs, results.SummarizeOptions{
		GoodputTTFT: fx.Goodput["ttft"], GoodputTPOT: fx.Goodput["tpot"], GoodputE2EL: fx.Goodput["e2el"]})

	e := fx.Expected
	if s.Requests.Completed != e.Completed || s.Requests.Failed != e.Failed {
		t.Errorf("completed/failed %d/%d, vLLM %d/%d", s.Requests.Completed, s.Requests.Failed, e.Completed, e.Failed)
	}
	if s.InputTokens != e.TotalInput || s.OutputTokens != e.TotalOutput {
		t.Errorf("tokens in/out %d/%d, vLLM %d/%d", s.InputTokens, s.OutputTokens, e.TotalInput, e.TotalOutput)
	}
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.15g, vLLM formula gives %.15g", name, got, want)
		}
	}
	check("duration_s", s.DurationSeconds, e.Duration)
	check("throughput.requests", s.Throughput.Requests, e.ReqThroughput)
	check("throughput.output_tokens", s.Throughput.OutputTokens, e.OutThroughput)
	check("throughput.total_tokens", s.Throughput.TotalTokens, e.TotThroughput)
	check("goodput.requests", s.Goodput.Requests, e.Goodput)
	vals := s.Values()
	for fam, want := range map[string]map[string]float64{"ttft": e.TTFT, "tpot": e.TPOT, "itl": e.ITL, "e2el": e.E2EL} {
		if len(want) != len(results.StatNames) {
			t.Fatalf("fixture has %d %s statistics, want %d", len(want), fam, len(results.StatNames))
		}
		for stat, w := range want {
			check(fam+"."+stat, vals[fam+"."+stat], w)
		}
	}
}
