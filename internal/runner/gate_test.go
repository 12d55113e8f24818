package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
)

// TestBaselinePath checks where the gate looks for its baseline.
func TestBaselinePath(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "base.json")
	tests := []struct {
		name     string
		filename string
		gate     *plan.Gate
		flag     string
		want     string
	}{
		// --baseline wins over the suite
		{name: "flag", filename: "perf/gate.hcl", gate: &plan.Gate{Baseline: "baseline.json"}, flag: "other.json", want: "other.json"},
		// --baseline none is passed on as is
		{name: "none", filename: "perf/gate.hcl", gate: &plan.Gate{Baseline: "baseline.json"}, flag: BaselineNone, want: BaselineNone},
		// the suite's baseline is relative to the suite file
		{name: "relative", filename: "perf/gate.hcl", gate: &plan.Gate{Baseline: "baseline.json"}, want: filepath.Join("perf", "baseline.json")},
		// an absolute baseline stays as it is
		{name: "absolute", filename: "perf/gate.hcl", gate: &plan.Gate{Baseline: abs}, want: abs},
		// a gate block without a baseline: none
		{name: "no baseline attribute", filename: "perf/gate.hcl", gate: &plan.Gate{}, want: ""},
		// no gate block at all: none
		{name: "no gate block", filename: "perf/gate.hcl", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &plan.Suite{Filename: tt.filename, Gate: tt.gate}
			if got := BaselinePath(s, tt.flag); got != tt.want {
				t.Errorf("BaselinePath = %q, want %q", got, tt.want)
			}
		})
	}
}

// gateBaselineFile writes a baseline for testdata/gate.hcl whose chat run
// completed the given number of requests (the test runs complete 8).
func gateBaselineFile(t *testing.T, completed int) string {
	t.Helper()
	f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: "runner-gate"}, Runs: []results.Run{{
		Name: "chat", Scenario: "chat", Status: results.StatusOK,
		Summary: results.Summary{Requests: results.Requests{Completed: completed}},
	}}}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := results.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGate runs testdata/gate.hcl against the tiny simulator through the
// whole gate. The baseline says 10 requests completed where the run
// completes 8: 20% worse, which a single run cannot call under a 25% or a
// 15% band (inconclusive, rerun to confirm); the rerun completes 8 again,
// so the mean of both runs decides: within 25%, past 15%.
func TestGate(t *testing.T) {
	corrupt := filepath.Join(t.TempDir(), "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(`{"version": "1.0", "runs": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		band       string
		ttftLimit  string
		baseline   string // a file, BaselineNone, "" for the suite's (which does not exist), or "worse" for the 10-request baseline
		rerun      bool
		failOn     bool
		targetURL  string
		want       compare.Decision
		rerunRan   bool
		regr, inc  int
		failed     int
		problems   int
		note       string // in Notes
		confirmed  bool   // the row was decided by the rerun
		wantErr    string // Gate's error; then nothing runs
		rowVerdict compare.Verdict
	}{
		// the rerun confirms a change within the band: pass
		{name: "rerun confirms within band", band: "25%", baseline: "worse", rerun: true,
			want: compare.DecisionPass, rerunRan: true, confirmed: true, rowVerdict: compare.Unchanged},
		// the rerun confirms a change past the band: a regression fails the gate
		{name: "rerun confirms regression", band: "15%", baseline: "worse", rerun: true,
			want: compare.DecisionFail, rerunRan: true, regr: 1, confirmed: true, rowVerdict: compare.Regression},
		// without the rerun the change stays inconclusive, which passes
		{name: "no rerun", band: "25%", baseline: "worse",
			want: compare.DecisionInconclusive, inc: 1, rowVerdict: compare.Inconclusive},
		// ... and fails with FailOnInconclusive
		{name: "no rerun, fail on inconclusive", band: "25%", baseline: "worse", failOn: true,
			want: compare.DecisionFail, inc: 1, rowVerdict: compare.Inconclusive},
		// baseline none: the asserts alone decide
		{name: "baseline none", baseline: BaselineNone, rerun: true, want: compare.DecisionPass, note: "baseline disabled"},
		// the suite's baseline does not exist yet: asserts only, with a note
		{name: "baseline not there yet", rerun: true, want: compare.DecisionPass, note: "testdata/gate-baseline.json does not exist yet"},
		// a failed assert fails the gate with or without a baseline
		{name: "failed assert", baseline: BaselineNone, ttftLimit: "0", want: compare.DecisionFail, failed: 1},
		// a target that does not answer: the gate cannot judge
		{name: "unreachable", baseline: "worse", rerun: true, targetURL: "http://127.0.0.1:1", want: compare.DecisionError, problems: 1},
		// an unreadable baseline stops the gate before anything runs
		{name: "corrupt baseline", baseline: corrupt, wantErr: "baseline " + corrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			if tt.band != "" {
				vars["band"] = tt.band
			}
			if tt.ttftLimit != "" {
				vars["ttft_limit"] = tt.ttftLimit
			}
			s := loadSuite(t, "gate.hcl", vars)
			baseline := tt.baseline
			if baseline == "worse" {
				baseline = gateBaselineFile(t, 10)
			}
			dir := t.TempDir()
			out, rerunPath := filepath.Join(dir, "results.json"), filepath.Join(dir, "results.rerun.json")
			rec := &recorder{}
			var told []string
			o, err := Gate(context.Background(), s, GateOptions{
				Options:            Options{OutputPath: out, TargetURL: tt.targetURL, Progress: rec},
				Baseline:           baseline,
				Rerun:              tt.rerun,
				RerunPath:          rerunPath,
				FailOnInconclusive: tt.failOn,
				Notify:             func(n string) { told = append(told, n) },
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || o != nil {
					t.Fatalf("Gate = %v, %v; want no outcome and an error with %q", o, err, tt.wantErr)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("a baseline error still ran the suite: %s exists", out)
				}
				return
			}
			if err != nil {
				t.Fatalf("Gate: %v", err)
			}
			if o.Decision != tt.want || o.Regressions() != tt.regr || o.Inconclusive() != tt.inc || len(o.FailedAsserts()) != tt.failed || len(o.Problems) != tt.problems {
				t.Errorf("verdict %q, %d regressions, %d inconclusive, %d failed asserts, problems %v; want %q, %d, %d, %d, %d problems",
					o.Decision, o.Regressions(), o.Inconclusive(), len(o.FailedAsserts()), o.Problems, tt.want, tt.regr, tt.inc, tt.failed, tt.problems)
			}
			if o.Current == nil || o.Comparison == nil || o.Comparison.Current != o.Current {
				t.Fatalf("outcome lacks the current results or their comparison: %+v", o)
			}
			if tt.note != "" && !strings.Contains(strings.Join(o.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", o.Notes, tt.note)
			}
			if strings.Join(told, "\n") != strings.Join(o.Notes, "\n") {
				t.Errorf("Notify was told %q, the outcome notes %q", told, o.Notes)
			}
			if (o.Baseline != nil) != (tt.baseline != BaselineNone && tt.baseline != "") {
				t.Errorf("baseline read = %v with Baseline %q", o.Baseline != nil, tt.baseline)
			}

			confirms := 0
			for _, e := range rec.events {
				if e, ok := e.(event.ConfirmStarted); ok {
					confirms++
					if strings.Join(e.Runs, ",") != "chat" {
						t.Errorf("ConfirmStarted runs = %v, want [chat]", e.Runs)
					}
				}
			}
			_, statErr := os.Stat(rerunPath)
			if ran := o.Rerun != nil; ran != tt.rerunRan || (confirms == 1) != tt.rerunRan || (statErr == nil) != tt.rerunRan {
				t.Errorf("rerun made %v, %d ConfirmStarted, rerun file written %v; want a rerun %v", ran, confirms, statErr == nil, tt.rerunRan)
			}
			if tt.rowVerdict != "" {
				rows := o.Comparison.Rows
				if len(rows) != 1 || rows[0].Metric.Name != "requests.completed" {
					t.Fatalf("rows = %+v, want one on requests.completed", rows)
				}
				if rows[0].Verdict != tt.rowVerdict || (rows[0].Confirm != nil) != tt.confirmed || rows[0].Rerun == tt.confirmed {
					t.Errorf("row verdict %q (%s), confirmed %v, rerun asked %v; want %q, confirmed %v",
						rows[0].Verdict, rows[0].Reason, rows[0].Confirm != nil, rows[0].Rerun, tt.rowVerdict, tt.confirmed)
				}
			}
		})
	}
}

// TestGateBaselineChecks checks what the gate refuses before anything runs
// (a --baseline that does not exist, a baseline of another suite or plan)
// and that a baseline run the results lack fails the gate unless the run
// was narrowed with --only, which a note then says.
func TestGateBaselineChecks(t *testing.T) {
	s := loadSuite(t, "gate.hcl", nil)
	write := func(edit func(*results.File)) string {
		f := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: "runner-gate"}, Runs: []results.Run{{
			Name: "chat", Scenario: "chat", Status: results.StatusOK,
			Summary: results.Summary{Requests: results.Requests{Completed: 8}},
		}}}
		edit(f)
		path := filepath.Join(t.TempDir(), "baseline.json")
		if err := results.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	retired := write(func(f *results.File) {
		r := f.Runs[0]
		r.Name, r.Scenario = "retired", "retired"
		f.Runs = append(f.Runs, r)
	})
	tests := []struct {
		name     string
		baseline string
		allow    bool
		wantErr  string
		want     compare.Decision
		note     string
	}{
		{name: "missing --baseline", baseline: filepath.Join(t.TempDir(), "typo.json"), wantErr: "typo.json does not exist"},
		{name: "another suite", baseline: write(func(f *results.File) { f.Suite.Name = "other" }), wantErr: `suite "other"`},
		{name: "another load", baseline: write(func(f *results.File) { f.Runs[0].Params = map[string]string{"rate": "4"} }), wantErr: "sweep values rate=4"},
		{name: "another concurrency", baseline: write(func(f *results.File) { f.Runs[0].Load = chatLoad(func(l *results.LoadConfig) { l.Concurrency = 4 }) }),
			wantErr: "run chat: concurrency 4 in the baseline, 2 now"},
		{name: "another workload", baseline: write(func(f *results.File) {
			f.Runs[0].Load = chatLoad(func(l *results.LoadConfig) { l.Workload, l.InputTokens = "prefix", 512 })
		}), wantErr: "workload prefix in the baseline, random now, input tokens 512 in the baseline, 16 now"},
		{name: "the same load, another seed", baseline: write(func(f *results.File) { f.Runs[0].Load = chatLoad(func(l *results.LoadConfig) { l.Seed = 99 }) }),
			want: compare.DecisionPass},
		{name: "another suite, allowed", baseline: write(func(f *results.File) { f.Suite.Name = "other" }), allow: true, want: compare.DecisionPass, note: "--allow-different-baseline"},
		{name: "baseline run missing", baseline: retired, want: compare.DecisionFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results.json")
			o, err := Gate(context.Background(), s, GateOptions{Options: Options{OutputPath: out}, Baseline: tt.baseline, AllowDifferentBaseline: tt.allow})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Gate error %v, want one with %q", err, tt.wantErr)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("a refused baseline still ran the suite")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision != tt.want {
				t.Errorf("verdict %q, want %q (rows %+v, missing %v)", o.Decision, tt.want, o.Comparison.Rows, o.Comparison.MissingRuns())
			}
			if tt.note != "" && !strings.Contains(strings.Join(o.Notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", o.Notes, tt.note)
			}
		})
	}
}

// chatLoad is the load gate.hcl's chat run records, edited.
func chatLoad(edit func(*results.LoadConfig)) *results.LoadConfig {
	l := &results.LoadConfig{Concurrency: 2, Requests: 8, Workload: "random", InputTokens: 16, OutputTokens: 64}
	edit(l)
	return l
}

// TestGateNarrowedPlan checks that a plan narrowed with --only leaves the
// baseline's other runs out with a note instead of calling them missing.
func TestGateNarrowedPlan(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	plan, err := s.Plan().Filter([]string{"chat"})
	if err != nil {
		t.Fatal(err)
	}
	base := &results.File{Version: results.SchemaVersion, Suite: results.SuiteInfo{Name: "runner-tiny"}, Runs: []results.Run{
		{Name: "chat", Scenario: "chat", Status: results.StatusOK},
		{Name: "sweep[concurrency=1]", Scenario: "sweep", Params: map[string]string{"concurrency": "1"}, Status: results.StatusOK},
	}}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := results.WriteFile(path, base); err != nil {
		t.Fatal(err)
	}
	o, err := Gate(context.Background(), s, GateOptions{Options: Options{OutputPath: filepath.Join(t.TempDir(), "r.json"), Plan: plan}, Baseline: path})
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != compare.DecisionPass || len(o.Comparison.MissingRuns()) != 0 {
		t.Errorf("verdict %q, missing %v; want a pass with nothing missing (problems %v)", o.Decision, o.Comparison.MissingRuns(), o.Problems)
	}
	if want := "1 baseline run(s) not run here and not judged: sweep[concurrency=1]"; !strings.Contains(strings.Join(o.Notes, "\n"), want) {
		t.Errorf("notes %q lack %q", o.Notes, want)
	}
}
