package runner

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// givenChat is a results file of testdata/gate.hcl's plan, measured
// elsewhere: its chat run completed 8 requests and its assert held as told.
func givenChat(s *plan.Suite, assertHeld bool, runs ...string) *results.File {
	_, info := ShardPlan(s.Plan(), nil)
	f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: s.Name}, Plan: info}
	for _, name := range runs {
		f.Runs = append(f.Runs, results.Run{Name: name, Scenario: name, Status: results.StatusOK,
			Summary: results.Summary{Requests: results.Requests{Completed: 8}},
			Asserts: []results.AssertResult{{Name: "fast_enough", Passed: assertHeld, Condition: "ttft.p95 < 60000"}}})
	}
	return f
}

func TestGateResults(t *testing.T) {
	tests := []struct {
		name     string
		band     string
		file     func(s *plan.Suite) *results.File
		baseline string // "worse": 10 requests completed
		failOn   bool
		want     compare.Decision
		note     string
		problem  string
		wantErr  error
	}{
		// 20% worse under a 25% band: a single run cannot call it, and no
		// rerun can be made here: inconclusive, with a note saying why.
		{name: "rerun needed stays inconclusive", band: "25%", baseline: "worse",
			file: func(s *plan.Suite) *results.File { return givenChat(s, true, "chat") },
			want: compare.DecisionInconclusive, note: "chat changed by less than a single run can call"},
		{name: "fail on inconclusive", band: "25%", baseline: "worse", failOn: true,
			file: func(s *plan.Suite) *results.File { return givenChat(s, true, "chat") },
			want: compare.DecisionFail, note: "stays inconclusive"},
		{name: "failed assert", baseline: BaselineNone,
			file: func(s *plan.Suite) *results.File { return givenChat(s, false, "chat") },
			want: compare.DecisionFail},
		{name: "missing run", baseline: BaselineNone,
			file: func(s *plan.Suite) *results.File { return givenChat(s, true) },
			want: compare.DecisionError, problem: "runs missing from the results files: chat"},
		{name: "another plan", baseline: BaselineNone,
			file: func(s *plan.Suite) *results.File {
				f := givenChat(s, true, "chat")
				f.Plan.Fingerprint = "sha256:00"
				return f
			},
			wantErr: ErrResultsFiles},
		{name: "another suite", baseline: BaselineNone,
			file: func(s *plan.Suite) *results.File {
				f := givenChat(s, true, "chat")
				f.Suite.Name = "other"
				return f
			},
			wantErr: ErrResultsFiles},
		{name: "a run the plan lacks", baseline: BaselineNone,
			file:    func(s *plan.Suite) *results.File { return givenChat(s, true, "chat", "extra") },
			wantErr: ErrResultsFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			if tt.band != "" {
				vars["band"] = tt.band
			}
			s := loadSuite(t, "gate.hcl", vars)
			baseline := tt.baseline
			if baseline == "worse" {
				baseline = gateBaselineFile(t, 10)
			}
			o, err := GateResults(s, []results.MergeInput{{Name: "given.json", File: tt.file(s)}}, GateOptions{
				Baseline: baseline, Rerun: true, FailOnInconclusive: tt.failOn,
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || o != nil {
					t.Fatalf("GateResults = %v, %v; want %v", o, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision != tt.want {
				t.Errorf("verdict %s, want %s (problems %v, notes %v)", o.Decision, tt.want, o.Problems, o.Notes)
			}
			if o.Rerun != nil {
				t.Error("a gate on results measured elsewhere made a rerun")
			}
			if tt.note != "" && !strings.Contains(strings.Join(o.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", o.Notes, tt.note)
			}
			if tt.problem != "" && (len(o.Problems) != 1 || !strings.Contains(o.Problems[0].Error(), tt.problem)) {
				t.Errorf("problems %v, want one with %q", o.Problems, tt.problem)
			}
			if tt.baseline == "worse" && o.Inconclusive() != 1 {
				t.Errorf("%d inconclusive rows, want 1", o.Inconclusive())
			}
			if tt.problem != "" && !o.Current.Partial {
				t.Error("results with a missing run are not marked partial")
			}
		})
	}
}

// TestGateResultsConfirmsWithGivenRerun gives the gate a confirming rerun
// made on the runner (marked PlanInfo.Rerun): the mean of both runs decides,
// as in Gate.
func TestGateResultsConfirmsWithGivenRerun(t *testing.T) {
	for _, tt := range []struct {
		band string
		want compare.Decision
	}{{"25%", compare.DecisionPass}, {"15%", compare.DecisionFail}} {
		t.Run(tt.band, func(t *testing.T) {
			s := loadSuite(t, "gate.hcl", map[string]string{"band": tt.band})
			rerun := givenChat(s, true, "chat")
			rerun.Plan.Rerun = true
			o, err := GateResults(s, []results.MergeInput{{Name: "r.rerun.json", File: rerun}, {Name: "r.json", File: givenChat(s, true, "chat")}},
				GateOptions{Baseline: gateBaselineFile(t, 10)})
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision != tt.want || o.Rerun == nil || o.Inconclusive() != 0 {
				t.Errorf("verdict %s (want %s), rerun used %v, %d inconclusive; notes %v", o.Decision, tt.want, o.Rerun != nil, o.Inconclusive(), o.Notes)
			}
			if len(o.Comparison.Rows) != 1 || o.Comparison.Rows[0].Confirm == nil {
				t.Errorf("the row was not confirmed by the rerun: %+v", o.Comparison.Rows)
			}
		})
	}
	s := loadSuite(t, "gate.hcl", nil)
	rerun := givenChat(s, true, "chat")
	rerun.Plan.Rerun = true
	if _, err := GateResults(s, []results.MergeInput{{Name: "r.rerun.json", File: rerun}}, GateOptions{Baseline: BaselineNone}); !errors.Is(err, ErrResultsFiles) {
		t.Errorf("a rerun alone: %v", err)
	}
}

func TestShardPlanRecordsTheShard(t *testing.T) {
	s := loadSuite(t, "gate.hcl", nil)
	whole, info := ShardPlan(s.Plan(), nil)
	if len(whole.Runs()) != 1 || info.Shards != 0 || info.Runs != 1 || info.Fingerprint != s.Plan().Fingerprint() {
		t.Errorf("whole plan: %+v", info)
	}
	cut, info := ShardPlan(s.Plan(), &plan.Shard{Index: 2, Count: 2})
	if len(cut.Runs()) != 0 || info.Shards != 2 || len(info.Parts) != 1 || info.Parts[0].Shard != 2 || len(info.Parts[0].Planned) != 0 {
		t.Errorf("empty shard 2/2: %d runs, %+v", len(cut.Runs()), info)
	}
	if got := DescribeShard(s.Plan(), plan.Shard{Index: 2, Count: 2}); !strings.Contains(got, "has nothing to run") {
		t.Errorf("DescribeShard = %q", got)
	}
}

func TestMissingRunsByShard(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	whole := s.Plan()
	shards := whole.Split(2)
	one, info := ShardPlan(whole, &plan.Shard{Index: 1, Count: 2})
	f := &results.File{Suite: results.SuiteInfo{Name: s.Name}, Plan: info}
	ran := one.Runs()
	if len(ran) < 2 || len(shards[1].Runs()) == 0 {
		t.Fatalf("tiny.hcl no longer splits into two shards of 2+ and 1+ runs: %d and %d", len(ran), len(shards[1].Runs()))
	}
	for _, r := range ran[:len(ran)-1] { // the shard was cut short before its last run
		f.Runs = append(f.Runs, results.Run{Name: r.Name, Status: results.StatusOK})
	}
	var second []string
	for _, r := range shards[1].Runs() {
		second = append(second, r.Name)
	}
	want := []string{
		"shard 1/2 (cut short): " + ran[len(ran)-1].Name,
		"shard 2/2 (no results file): " + strings.Join(second, ", "),
	}
	if got := missingRuns(whole, f); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("missingRuns =\n%q\nwant\n%q", got, want)
	}
}

// TestGateResultsRefusesOtherLoad gives the gate results whose run records
// another load than the plan's and the baseline's (concurrency 16 against
// 2): a file without the plan's fingerprint passes the plan check, so the
// one judge's comparability check of the files themselves is what stops
// it. The gate judges the asserts only, and the difference is its problem.
func TestGateResultsRefusesOtherLoad(t *testing.T) {
	s := loadSuite(t, "gate.hcl", nil)
	planned := planFile(s, nil).Runs[0].Load
	base := givenChat(s, true, "chat")
	base.Runs[0].Load = planned
	basePath := filepath.Join(t.TempDir(), "baseline.json")
	if err := results.WriteFile(basePath, base); err != nil {
		t.Fatal(err)
	}
	cur := givenChat(s, true, "chat")
	cur.Plan = nil
	other := *planned
	other.Concurrency = 16
	cur.Runs[0].Load = &other
	o, err := GateResults(s, []results.MergeInput{{Name: "given.json", File: cur}}, GateOptions{Baseline: basePath})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != compare.DecisionError || len(o.Comparison.Rows) != 0 || len(o.Problems) != 1 ||
		!strings.Contains(o.Problems[0].Error(), "concurrency 2 in the baseline, 16 now") {
		t.Errorf("verdict %s, %d rows, problems %v; want error, the asserts only, the concurrency named", o.Decision, len(o.Comparison.Rows), o.Problems)
	}
}
