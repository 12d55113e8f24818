package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

const partsSuite = `simulator "sim" {
  profile = "tiny"
}
# this test is about what the parts hold, not the client's pace: a
# loaded two-core machine under -race is let off the self-checks
defaults {
  load {
    self_check {
      schedule_lag_p99 = "5s"
      achieved_rate    = 0.2
      in_flight        = 0.2
    }
  }
}
scenario "mixed" {
  target = simulator.sim
  mix {
    workload "chat" {
      weight        = 3
      input_tokens  = 32
      output_tokens = 4
    }
    workload "rag" {
      weight        = 1
      kind          = "prefix"
      prefix_tokens = 64
      input_tokens  = 96
      output_tokens = 6
    }
  }
  load {
    concurrency = 8
    requests    = 400
    seed        = 21
  }
  assert "chat" {
    condition = mix.chat.ttft.p95 < 60000 && mix.rag.requests.completed > 0
  }
}
scenario "staged" {
  target = simulator.sim
  workload {
    input_tokens  = 32
    output_tokens = 16
  }
  load {
    warmup = 4
    stage {
      concurrency = 4
      requests    = 40
    }
    stage {
      rate     = 50
      requests = 60
    }
  }
  assert "stage2" {
    condition = stage.2.ttft.p95 < 60000 && stage.1.requests.completed == 40
  }
}
`

// TestMixAndStagesOnTheSimulator runs a 3:1 mix and two stages on the
// simulator: the mix's members split near 3:1 and each has its summary,
// each stage sends what it asks for, the asserts on both evaluate, the
// file reads back, and a gate tolerance on a member's metric compares.
func TestMixAndStagesOnTheSimulator(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(path, []byte(partsSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	out := filepath.Join(dir, "results.json")
	if _, err := Run(context.Background(), s.Runnable(), Options{OutputPath: out}); err != nil {
		t.Fatal(err)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*results.Run{}
	for i := range f.Runs {
		byName[f.Runs[i].Name] = &f.Runs[i]
	}
	mixed, staged := byName["mixed"], byName["staged"]
	if mixed == nil || staged == nil {
		t.Fatalf("runs %v", f.Runs)
	}
	for _, r := range []*results.Run{mixed, staged} {
		if r.Status != results.StatusOK || len(r.Asserts) != 1 || !r.Asserts[0].Passed {
			t.Fatalf("run %s: %s %v %v, asserts %+v", r.Name, r.Status, r.InvalidReasons, r.Error, r.Asserts)
		}
	}
	chat, rag := mixed.Summary.Part(results.MemberRef("chat")), mixed.Summary.Part(results.MemberRef("rag"))
	if chat == nil || rag == nil {
		t.Fatalf("parts %+v", mixed.Summary.Parts)
	}
	nc, nr := chat.Summary.Requests.Completed, rag.Summary.Requests.Completed
	if nc+nr != 400 || nc < 261 || nc > 339 {
		t.Fatalf("the mix sent %d chat and %d rag requests, not near 3:1 of 400", nc, nr)
	}
	// the simulator answered each member with its own length
	if chat.Summary.OutputTokens != int64(4*nc) || rag.Summary.OutputTokens != int64(6*nr) {
		t.Fatalf("chat %d tokens for %d requests, rag %d for %d", chat.Summary.OutputTokens, nc, rag.Summary.OutputTokens, nr)
	}
	t.Logf("simulator, seed 21, 400 requests: chat %d, rag %d; chat ttft p95 %.2f ms, rag %.2f ms", nc, nr, chat.Summary.TTFT.P95, rag.Summary.TTFT.P95)
	for i, want := range []int{40, 60} {
		p := staged.Summary.Part(results.StageRef(i + 1))
		if p == nil || p.Summary.Requests.Completed != want {
			t.Fatalf("stage %d: %+v, want %d requests", i+1, p, want)
		}
		t.Logf("simulator stage %d: %d requests, achieved %.2f req/s, lag p99 %.2f ms", i+1, want, p.Summary.Client.AchievedRate, p.Summary.Client.ScheduleLagP99)
	}
	if staged.Summary.Requests.Completed != 100 || len(staged.Requests.Stage) != 100 || len(mixed.Requests.Member) != 400 {
		t.Fatalf("the run's summary covers %d requests; log columns: %d stages, %d members", staged.Summary.Requests.Completed, len(staged.Requests.Stage), len(mixed.Requests.Member))
	}
	cmp := compare.Compare(f, f, compare.Config{Alpha: 0.05, Tolerances: []compare.Tolerance{{Metric: "mix.rag.ttft.p95", Relative: true, Amount: 0.1}, {Metric: "stage.2.e2el.mean", Relative: true, Amount: 0.1}}})
	judged := 0
	for _, row := range cmp.Rows {
		if row.Verdict == compare.NotMeasured || row.Verdict == compare.Invalid {
			t.Fatalf("row %s %s: %s %s", row.Run, row.Metric.Name, row.Verdict, row.Reason.Raw())
		}
		if row.Baseline == row.Current && row.Current > 0 {
			judged++
		}
	}
	if judged != 2 {
		t.Fatalf("%d rows compared a part's metric with itself, want 2: %+v", judged, cmp.Rows)
	}
}

func TestPlannedTotalOfStages(t *testing.T) {
	for _, tc := range []struct {
		stages []runspec.Stage
		want   total
	}{
		{[]runspec.Stage{{Requests: 30}, {Requests: 40}}, total{Requests: 70}},
		{[]runspec.Stage{{Duration: time.Minute}, {Duration: 2 * time.Minute}}, total{Duration: 3 * time.Minute}},
		{[]runspec.Stage{{Requests: 30}, {Duration: time.Minute}}, total{}},
		{[]runspec.Stage{{Requests: 30, Duration: time.Minute}}, total{}},
	} {
		if got := plannedTotal(runspec.Load{Stages: tc.stages}); got != tc.want {
			t.Errorf("plannedTotal(%+v) = %+v, want %+v", tc.stages, got, tc.want)
		}
	}
	if got := plannedTotal(runspec.Load{Requests: 5, Duration: time.Second}); got != (total{5, time.Second}) {
		t.Errorf("without stages: %+v", got)
	}
}
