package suite

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/results"
)

const capacitySuite = `
simulator "sim" { profile = "tiny" }
scenario "max_users" {
  target = simulator.sim
  load {
    requests = 200
    warmup   = 8
  }
  capacity {
    vary    = "concurrency"
    min     = 2
    max     = 128
    repeats = 3
    slo     = ttft.p95 < 500 && tpot.p95 < 50
  }
  assert "enough" {
    condition = capacity.concurrency >= 64
  }
}
scenario "max_rate" {
  target = simulator.sim
  load {
    concurrency = 256
    duration    = "30s"
  }
  capacity {
    vary = "rate"
    min  = 0.5
    max  = 40
    slo  = e2el.p99 < 20000
  }
}
`

func TestCapacityBlock(t *testing.T) {
	s, diags := loadSource("capacity.hcl", []byte(capacitySuite), Options{Getenv: func(string) string { return "" }})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	runs := s.Plan().Runs()
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per scenario", len(runs))
	}
	users, rate := runs[0], runs[1]
	c := users.Capacity
	if c == nil || c.Vary != results.VaryConcurrency || c.Min != 2 || c.Max != 128 || c.Step != 1 || c.Repeats != 3 ||
		c.SLO.Source != "ttft.p95 < 500 && tpot.p95 < 50" {
		t.Fatalf("capacity = %+v", c)
	}
	if r := rate.Capacity; r == nil || r.Vary != results.VaryRate || r.Step != 0 || r.Repeats != 2 {
		t.Fatalf("rate capacity = %+v", r)
	}

	p := users.ProbeRun(48)
	if p.Name != "max_users[concurrency=48]" || p.Load.Concurrency != 48 || p.Capacity != nil || p.Load.Requests != 200 {
		t.Errorf("probe run = %s, concurrency %d, requests %d, capacity %v", p.Name, p.Load.Concurrency, p.Load.Requests, p.Capacity)
	}
	if p := users.ProbeRun(128); p.Load.Requests != 256 {
		t.Errorf("probe at 128 users sends %d requests, want 2 per user", p.Load.Requests)
	}
	if q := rate.ProbeRun(2.5); q.Name != "max_rate[rate=2.5]" || q.Load.Rate != 2.5 || q.Load.Concurrency != 256 {
		t.Errorf("rate probe = %s, rate %v, cap %d", q.Name, q.Load.Rate, q.Load.Concurrency)
	}

	for _, tc := range []struct {
		ttft, tpot float64
		want       bool
	}{{100, 20, true}, {600, 20, false}, {100, 60, false}} {
		sum := &results.Summary{TTFT: results.Stats{N: 1, P95: tc.ttft}, TPOT: results.Stats{N: 1, P95: tc.tpot}}
		if got := users.EvalSLO(sum); got.Passed != tc.want || got.Values["ttft.p95"] != tc.ttft {
			t.Errorf("SLO on ttft %v tpot %v = %+v, want passed %v", tc.ttft, tc.tpot, got, tc.want)
		}
	}
	// The answer is a metric asserts can read, higher being better.
	sum := &results.Summary{Capacity: &results.CapacityAnswer{Vary: results.VaryConcurrency, Value: 48}}
	if a := users.EvalAsserts(sum); len(a) != 1 || a[0].Passed || a[0].Values["capacity.concurrency"] != 48 {
		t.Errorf("assert on capacity 48 = %+v, want failed, seeing 48", a)
	}
	if m, ok := results.LookupMetric("capacity.concurrency"); !ok || m.Better != results.HigherIsBetter {
		t.Errorf("capacity.concurrency metric = %+v, %v", m, ok)
	}
}

// TestCapacityRateSearchIsOpenLoop checks that a search over rate counts as
// an open loop when the load block is checked, though it sets no rate:
// burstiness shapes its probes' arrivals, and ramp_up, which would fail
// every probe in the load generator, is refused at validation. A search
// over concurrency stays a closed loop, where burstiness means nothing.
func TestCapacityRateSearchIsOpenLoop(t *testing.T) {
	src := func(vary, knob string) []byte {
		return []byte(`
simulator "sim" { profile = "tiny" }
scenario "s" {
  target = simulator.sim
  load {
    requests = 100
    ` + knob + `
  }
  capacity {
    vary = "` + vary + `"
    min  = 2
    max  = 64
    slo  = ttft.p95 < 50
  }
}
`)
	}
	opts := Options{Getenv: func(string) string { return "" }}
	s, diags := loadSource("rate.hcl", src("rate", "burstiness = 50"), opts)
	if diags.HasErrors() {
		t.Fatalf("a rate search with burstiness: %v", diags)
	}
	if p := s.Plan().Runs()[0].ProbeRun(12); p.Load.Rate != 12 || p.Load.Burstiness != 50 {
		t.Errorf("rate probe: rate %v, burstiness %v; want 12 and 50", p.Load.Rate, p.Load.Burstiness)
	}
	for _, tc := range []struct{ vary, knob, summary string }{
		{"rate", `ramp_up = "1s"`, "ramp_up in an open loop"},
		{"concurrency", "burstiness = 50", "Burstiness without a rate"},
	} {
		_, diags := loadSource("bad.hcl", src(tc.vary, tc.knob), opts)
		if !diags.HasErrors() || diags.Errs()[0].(*hcl.Diagnostic).Summary != tc.summary {
			t.Errorf("%s search with %s: diagnostics %v, want %q", tc.vary, tc.knob, diags, tc.summary)
		}
	}
}

// TestSLOValues checks a capacity search records the values of the
// suite's variables its SLO names, each in the unit of the metric it
// bounds, so that reports can say what the SLO was.
func TestSLOValues(t *testing.T) {
	s := mustLoad(t, `variable "ttft_ms" { default = 500 }
variable "users" { default = 4 }
scenario "max_users" {
  load { requests = 200 }
  capacity {
    vary = "concurrency"
    min  = var.users
    max  = 64
    slo  = ttft.p95 < var.ttft_ms && error_rate < 0.01
  }
}`, Options{Vars: map[string]string{"ttft_ms": "300"}})
	vals, units := s.Plan().Runs()[0].SLOValues()
	if len(vals) != 1 || vals["var.ttft_ms"] != 300 || len(units) != 1 || units["var.ttft_ms"] != results.Milliseconds {
		t.Errorf("SLO values %v, units %v: want var.ttft_ms = 300 in ms", vals, units)
	}
}
