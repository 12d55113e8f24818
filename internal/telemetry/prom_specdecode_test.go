package telemetry

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// specPage is a /metrics page with vLLM's speculative-decoding counters
// on two engines, engine e holding drafts[e], draft tokens 3 x drafts[e]
// (num_speculative_tokens 3) and the accepted tokens per position given;
// the accepted total is their sum, as vLLM counts them.
func specPage(drafts [2]float64, perPos [2][3]float64) string {
	var b strings.Builder
	b.WriteString("# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0\n")
	for _, c := range []string{"vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens"} {
		fmt.Fprintf(&b, "# HELP %s_total Counter.\n# TYPE %s_total counter\n", c, c)
		for e := range 2 {
			v := drafts[e]
			switch c {
			case "vllm:spec_decode_num_draft_tokens":
				v *= 3
			case "vllm:spec_decode_num_accepted_tokens":
				v = perPos[e][0] + perPos[e][1] + perPos[e][2]
			}
			fmt.Fprintf(&b, "%s_total{engine=\"%d\",model_name=\"m\"} %g\n", c, e, v)
		}
	}
	b.WriteString("# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n")
	for e := range 2 {
		for p := range 3 {
			fmt.Fprintf(&b, "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"%d\",model_name=\"m\",position=\"%d\"} %g\n", e, p, perPos[e][p])
		}
	}
	return b.String()
}

// TestSpecDecodeFromScrapes checks the window's figures against counters
// of a known rate: 200 drafts of 3 tokens in the window (120 and 80 on the
// two engines) with 160, 120 and 80 accepted at positions 0, 1 and 2:
// 360 of 600 draft tokens (0.6), 1 + 360/200 = 2.8 tokens a step, 0.8,
// 0.6 and 0.4 by position; nothing of what was counted before.
func TestSpecDecodeFromScrapes(t *testing.T) {
	before := specPage([2]float64{50, 30}, [2][3]float64{{40, 10, 5}, {30, 30, 0}})
	after := specPage([2]float64{50 + 120, 30 + 80}, [2][3]float64{{40 + 100, 10 + 70, 5 + 50}, {30 + 60, 30 + 50, 0 + 30}})
	m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, before), parsePage(t, after)})
	if m == nil || m.SpecDecode == nil {
		t.Fatalf("server metrics %+v: want speculative decoding", m)
	}
	sd := m.SpecDecode
	if sd.Drafts != 200 || sd.DraftTokens != 600 || sd.AcceptedTokens != 360 {
		t.Errorf("drafts %v, draft tokens %v, accepted %v; want 200, 600, 360", sd.Drafts, sd.DraftTokens, sd.AcceptedTokens)
	}
	s := results.Summary{Server: m}
	for name, want := range map[string]float64{
		"server.spec_decode.acceptance_rate":   0.6,
		"server.spec_decode.acceptance_length": 2.8,
		results.SpecPositionMetric(0):          0.8,
		results.SpecPositionMetric(1):          0.6,
		results.SpecPositionMetric(2):          0.4,
	} {
		mt, ok := results.LookupMetric(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		if v, ok := mt.Value(&s); !ok || math.Abs(v-want) > 1e-12 || mt.Better != results.HigherIsBetter {
			t.Errorf("%s = %v (present %v); want %v, higher is better", name, v, ok, want)
		}
	}
	mt, _ := results.LookupMetric(results.SpecPositionMetric(3))
	if _, ok := mt.Value(&s); ok {
		t.Errorf("position 3 of a 3-token draft has a value")
	}
	if why := mt.WhyNotMeasured(&s); !strings.Contains(why, "vllm:spec_decode_num_drafts") {
		t.Errorf("why not measured: %q", why)
	}
	if err := (&results.File{Runs: []results.Run{{Name: "r", Status: results.StatusOK, Summary: s}}}).Check(); err != nil && strings.Contains(err.Error(), "spec_decode") {
		t.Errorf("check: %v", err)
	}
}

// TestSpecDecodeUnsound leaves speculative decoding out where the scrapes
// cannot give it: a server without the counters, a restart between the
// scrapes, no draft in the window, a NaN counter.
func TestSpecDecodeUnsound(t *testing.T) {
	one := specPage([2]float64{10, 0}, [2][3]float64{{5, 2, 1}})
	two := specPage([2]float64{20, 0}, [2][3]float64{{10, 4, 2}})
	plain := "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 3\n"
	for name, pages := range map[string][2]string{
		"no counters": {plain, plain},
		"restart":     {two, one},
		"no draft":    {one, one},
		"NaN":         {one, strings.Replace(two, `vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 20`, `vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} NaN`, 1)},
	} {
		m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, pages[0]), parsePage(t, pages[1])})
		if m == nil || m.SpecDecode != nil {
			t.Errorf("%s: %+v, want server metrics without speculative decoding", name, m)
		}
	}
	// a page without the per-position counter has the totals only
	noPos := one[:strings.Index(one, "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total")]
	noPos2 := two[:strings.Index(two, "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total")]
	m := ServerMetricsFrom([]ServerSnapshot{parsePage(t, noPos), parsePage(t, noPos2)})
	if m == nil || m.SpecDecode == nil || m.SpecDecode.PositionRates != nil || math.Abs(m.SpecDecode.AcceptanceRate-8/30.0) > 1e-12 {
		t.Errorf("without positions: %+v, want rate 8/30 and no positions", m.SpecDecode)
	}
}
