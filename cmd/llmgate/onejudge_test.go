package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/suite"
)

const judgeSuite = "testdata/judge/judge.hcl"

// headlineRE finds a headline in any command's output: its mark and text.
var headlineRE = regexp.MustCompile(`(❌|⛔|✅) [^\n<]*`)

func TestOneJudgeBefore(t *testing.T) {
	dir := t.TempDir()
	base := writeResults(t, dir, "base.json", 100, 1, false)
	cur := writeResults(t, dir, "cur.json", 140, 2, false)
	html := filepath.Join(dir, "r.html")
	_, o1, e1 := runCLI(t, "gate", judgeSuite, "--results", cur, "--baseline", base)
	_, o2, e2 := runCLI(t, "compare", base, cur, "--suite", judgeSuite)
	_, o3, e3 := runCLI(t, "report", cur, "--baseline", base, "--suite", judgeSuite, "-o", html)
	b, _ := os.ReadFile(html)
	t.Logf("gate: %s\n%s", headlineRE.FindString(o1+e1), o1+e1)
	t.Logf("compare: %s", headlineRE.FindString(o2+e2))
	t.Logf("report: %s / %s", o3+e3, htmlHeadRE.FindString(string(b)))
	_, _, _ = runCLI(t, "report", cur, "--baseline", base, "-o", html)
	b, _ = os.ReadFile(html)
	t.Logf("report no suite: %s", htmlHeadRE.FindString(string(b)))
	// The rerun case: +12% asks for a rerun; the rerun at +13% confirms.
	cur2 := writeResults(t, dir, "cur2.json", 112, 3, false)
	rerun := writeEdited(t, writeResults(t, dir, "r0.json", 113, 4, false), "rerun.json", func(f *results.File) { f.Plan = &results.PlanInfo{Rerun: true, Fingerprint: judgePlanFingerprint(t), Runs: 1} })
	_, o1, e1 = runCLI(t, "gate", judgeSuite, "--results", cur2, "--results", rerun, "--baseline", base)
	_, o2, e2 = runCLI(t, "compare", base, cur2, "--suite", judgeSuite, "--rerun", rerun)
	_, _, _ = runCLI(t, "report", cur2, "--baseline", base, "--suite", judgeSuite, "-o", html)
	b, _ = os.ReadFile(html)
	t.Logf("rerun gate out: %s", o1+e1); t.Logf("rerun: gate %s | compare %s | report %s", headlineRE.FindString(o1+e1), headlineRE.FindString(o2+e2), htmlHeadRE.FindString(string(b)))
}

var htmlHeadRE = regexp.MustCompile(`aria-label="(\w+)"></span>([^<]*)</p>`)

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
