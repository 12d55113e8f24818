package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// judgeSuite has one band, ttft.p95 within 10%: compare and report without
// it judge four metrics on default bands.
const judgeSuite = "testdata/judge/judge.hcl"

// verdictRE finds a verdict in a command's output: the headline's mark and
// its counts ("❌ 1 regression in 1 metric", "❌ gate FAIL: 1 regression in
// 1 metric").
var verdictRE = regexp.MustCompile(`(❌|⛔|✅) (?:gate [A-Z]+: )?((?:\d+ regressions?|no regression)(?:, \d+ inconclusive)? in \d+ metrics?)`)

// verdictOf is the mark and counts of the first verdict in out.
func verdictOf(t *testing.T, what, out string) string {
	t.Helper()
	m := verdictRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("%s prints no verdict:\n%s", what, out)
	}
	return m[1] + " " + m[2]
}

// TestOneJudge checks that gate --results, compare --suite and report
// --baseline --suite give one pair of files one verdict with one count,
// with and without a confirming rerun, and that report, where it cannot
// reproduce the gate (no --suite, no rerun), shows the gate's recorded
// verdict and says why its own comparison differs. Before the one judge,
// report judged the rerun case a pass ("no regression in 1 metric (1
// inconclusive)") where the gate and compare failed it.
func TestOneJudge(t *testing.T) {
	dir := t.TempDir()
	base := writeResults(t, dir, "base.json", 100, 1, false)
	html := filepath.Join(dir, "report.html")
	tests := []struct {
		name string
		ttft float64 // the current run's median TTFT against the baseline's 100 ms
		// rerunTTFT, when set, is a confirming rerun's median TTFT.
		rerunTTFT float64
		want      string
	}{
		// +40%: past twice the 10% band, a regression from one run
		{name: "single run", ttft: 140, want: "❌ 1 regression in 1 metric"},
		// +12%: asks for a rerun; the rerun at +13% confirms it
		{name: "confirmed by a rerun", ttft: 112, rerunTTFT: 113, want: "❌ 1 regression in 1 metric"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := writeResults(t, dir, tt.name+".json", tt.ttft, uint64(10+i), false)
			judged := filepath.Join(dir, tt.name+".judged.json")
			gateArgs := []string{"gate", judgeSuite, "--results", cur, "--baseline", base, "-o", judged}
			compareArgs := []string{"compare", base, cur, "--suite", judgeSuite}
			reportArgs := []string{"report", cur, "--baseline", base, "--suite", judgeSuite, "-o", html}
			var rerun string
			if tt.rerunTTFT != 0 {
				rerun = writeEdited(t, writeResults(t, dir, tt.name+".r0.json", tt.rerunTTFT, uint64(20+i), false), tt.name+".rerun.json",
					func(f *results.File) {
						f.Plan = &results.PlanInfo{Rerun: true, Fingerprint: judgePlanFingerprint(t), Runs: 1}
					})
				gateArgs = append(gateArgs, "--results", rerun)
				compareArgs = append(compareArgs, "--rerun", rerun)
				reportArgs = append(reportArgs, "--rerun", rerun)
			}
			code, stdout, stderr := runCLI(t, gateArgs...)
			if code != exitGate {
				t.Fatalf("gate: exit %d, want 1\n%s\n%s", code, stdout, stderr)
			}
			if got := verdictOf(t, "gate", stdout+stderr); got != tt.want {
				t.Errorf("gate: %q, want %q", got, tt.want)
			}
			code, stdout, stderr = runCLI(t, compareArgs...)
			if got := verdictOf(t, "compare", stdout); code != exitGate || got != tt.want {
				t.Errorf("compare --suite: exit %d, %q; want 1, %q\n%s", code, got, tt.want, stderr)
			}
			code, stdout, stderr = runCLI(t, reportArgs...)
			if got := verdictOf(t, "report", stdout); code != exitPass || got != tt.want {
				t.Errorf("report --baseline --suite: exit %d, %q; want 0, %q\n%s", code, got, tt.want, stderr)
			}
			// The judged file records the gate's verdict (and its rerun):
			// report reproduces it with the suite, no --rerun needed.
			code, stdout, stderr = runCLI(t, "report", judged, "--baseline", base, "--suite", judgeSuite, "-o", html)
			if got := verdictOf(t, "report", stdout); code != exitPass || got != tt.want || !strings.Contains(stdout, "(the gate's, recorded in "+judged+", reproduced)") {
				t.Errorf("report of the gate's file: exit %d, %q; want the gate's %q, reproduced\n%s\n%s", code, got, tt.want, stdout, stderr)
			}
			// Without --suite the defaults judge four metrics: the report
			// shows the gate's verdict and says it cannot reproduce it.
			code, stdout, stderr = runCLI(t, "report", judged, "--baseline", base, "-o", html)
			if got := verdictOf(t, "report", stdout); code != exitPass || got != tt.want || !strings.Contains(stdout, "(the gate's, recorded in "+judged+")") {
				t.Errorf("report of the gate's file without --suite: exit %d, %q; want the gate's %q\n%s\n%s", code, got, tt.want, stdout, stderr)
			}
			for _, want := range []string{"does not reproduce it and finds", "in 4 metrics", "the bands are the defaults (no --suite)"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("report without --suite does not say %q:\n%s", want, stderr)
				}
			}
			b, err := os.ReadFile(html)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			if !strings.Contains(page, "gate FAIL: 1 regression in 1 metric</p>") || !strings.Contains(page, "does not reproduce it") {
				t.Errorf("the page's headline is not the gate's, or it does not say why its table differs")
			}
			// Without --baseline there is no comparison: the gate's
			// verdict as it recorded it.
			code, stdout, stderr = runCLI(t, "report", judged, "-o", html)
			if got := verdictOf(t, "report", stdout); code != exitPass || got != tt.want || !strings.Contains(stdout, "(the gate's, recorded in "+judged+"; --baseline shows its comparison)") {
				t.Errorf("report of the gate's file without --baseline: exit %d, %q\n%s\n%s", code, got, stdout, stderr)
			}
			if rerun == "" {
				return
			}
			// The recorded rerun gone: the report cannot confirm, shows
			// the gate's verdict and says which file it lacks.
			if err := os.Remove(rerun); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr = runCLI(t, "report", judged, "--baseline", base, "--suite", judgeSuite, "-o", html)
			if got := verdictOf(t, "report", stdout); code != exitPass || got != tt.want || !strings.Contains(stdout, "(the gate's, recorded in "+judged+")") ||
				!strings.Contains(stderr, "cannot use the gate's confirming rerun "+filepath.Base(rerun)) || !strings.Contains(stderr, "finds ✅ no regression in 1 metric (1 inconclusive)") {
				t.Errorf("report of the gate's file without its rerun: exit %d, %q\n%s\n%s", code, got, stdout, stderr)
			}
		})
	}
	// A gate's record against no baseline is not this comparison's: the
	// report judges on its own and says why it shows no gate's verdict.
	assertsOnly := filepath.Join(dir, "asserts-only.json")
	if code, stdout, stderr := runCLI(t, "gate", judgeSuite, "--results", filepath.Join(dir, "single run.json"), "--baseline", "none", "-o", assertsOnly); code != exitPass {
		t.Fatalf("gate --baseline none: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, "report", assertsOnly, "--baseline", base, "--suite", judgeSuite, "-o", html)
	if got := verdictOf(t, "report", stdout); code != exitPass || got != "❌ 1 regression in 1 metric" || strings.Contains(stdout, "the gate's") ||
		!strings.Contains(stderr, "records a gate's verdict against no baseline (the asserts only), not "+base) {
		t.Errorf("report of an asserts-only gate's file: exit %d, %q\n%s\n%s", code, got, stdout, stderr)
	}

	// A report that cannot reproduce a gate and has no record of one says
	// why its verdict may be another: here the rerun it was not given.
	cur := filepath.Join(dir, "confirmed by a rerun.json")
	code, stdout, stderr = runCLI(t, "report", cur, "--baseline", base, "--suite", judgeSuite, "-o", html)
	if code != exitPass || !strings.Contains(stdout, "1 inconclusive") || !strings.Contains(stderr, "chat asks for a confirming rerun, which this report was not given") {
		t.Errorf("report without the rerun: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// judgePlanFingerprint is the fingerprint of judgeSuite's plan, which a
// rerun file records.
func judgePlanFingerprint(t *testing.T) string {
	t.Helper()
	s, diags := suite.Load(judgeSuite, suite.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s.Plan().Fingerprint()
}
