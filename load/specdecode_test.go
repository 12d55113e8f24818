package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestScraperSpecDecode scrapes, over real HTTP, an exporter whose
// speculative-decoding counters (vLLM's names, the exposition's _total)
// move by known counts between the "before" and the "after" scrape: 400
// drafts of 4 tokens, 1000 of the 1600 accepted (by position 350, 300,
// 200, 150). The run's figures are exact: rate 0.625, length 3.5,
// positions 0.875, 0.75, 0.5, 0.375.
func TestScraperSpecDecode(t *testing.T) {
	page := func(drafts float64, perPos [4]float64) string {
		acc := perPos[0] + perPos[1] + perPos[2] + perPos[3]
		s := "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 4\n"
		s += fmt.Sprintf("# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} %g\n", drafts)
		s += fmt.Sprintf("# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{engine=\"0\",model_name=\"m\"} %g\n", 4*drafts)
		s += fmt.Sprintf("# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{engine=\"0\",model_name=\"m\"} %g\n", acc)
		s += "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n"
		for p, v := range perPos {
			s += fmt.Sprintf("vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"%d\"} %g\n", p, v)
		}
		return s
	}
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 { // every scrape after the "before" one
			io.WriteString(w, page(100+400, [4]float64{90 + 350, 80 + 300, 50 + 200, 20 + 150}))
			return
		}
		io.WriteString(w, page(100, [4]float64{90, 80, 50, 20}))
	}))
	defer srv.Close()
	s := NewScraper(srv.URL, "", time.Hour)
	s.Start(context.Background())
	m, _ := s.Stop()
	if m == nil || m.SpecDecode == nil {
		t.Fatalf("server metrics %+v: want speculative decoding", m)
	}
	sd := m.SpecDecode
	if sd.Drafts != 400 || sd.DraftTokens != 1600 || sd.AcceptedTokens != 1000 || sd.AcceptanceRate != 0.625 || sd.AcceptanceLength != 3.5 {
		t.Errorf("%+v: want 400 drafts, 1600 draft tokens, 1000 accepted, rate 0.625, length 3.5", sd)
	}
	want := []float64{0.875, 0.75, 0.5, 0.375}
	if len(sd.PositionRates) != len(want) {
		t.Fatalf("position rates %v, want %v", sd.PositionRates, want)
	}
	for i, w := range want {
		if math.Abs(sd.PositionRates[i]-w) > 1e-12 {
			t.Errorf("position %d: %v, want %v", i, sd.PositionRates[i], w)
		}
	}
}
