package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// writeResults writes a synthetic results file with one chat run whose
// median TTFT is ttft ms, optionally with a failed assert.
func writeResults(t *testing.T, dir, name string, ttft float64, seed uint64, failAssert bool) string {
	t.Helper()
	spec := comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.1, N: 300, Seed: seed}
	if failAssert {
		spec.Asserts = []results.AssertResult{{Name: "slo", Passed: false, Condition: "ttft.p95 < 1"}}
	}
	path := filepath.Join(dir, name)
	if err := results.WriteFile(path, comparetest.File(results.Environment{Model: "m"}, spec)); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeEdited writes a copy of the results file at src, changed by edit,
// beside it as name. It bypasses Read's checks so that broken files can be
// written.
func writeEdited(t *testing.T, src, name string, edit func(*results.File)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var f results.File
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	edit(&f)
	path := filepath.Join(filepath.Dir(src), name)
	if err := results.WriteFile(path, &f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareExitCodes(t *testing.T) {
	dir := t.TempDir()
	base := writeResults(t, dir, "base.json", 100, 1, false)
	same := writeResults(t, dir, "same.json", 100, 2, false)
	slow := writeResults(t, dir, "slow.json", 150, 3, false)
	near := writeResults(t, dir, "near.json", 113, 4, false)
	asserted := writeResults(t, dir, "assert.json", 100, 5, true)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	// interrupted: the current file was cut short, its one run partial
	interrupted := writeEdited(t, base, "interrupted.json", func(f *results.File) {
		f.Partial, f.Runs[0].Status, f.Runs[0].Error = true, results.StatusPartial, "interrupted"
	})
	invalid := writeEdited(t, same, "invalid.json", func(f *results.File) {
		f.Runs[0].Status, f.Runs[0].InvalidReasons = results.StatusInvalid, []string{"achieved rate 2/s below planned 4/s"}
	})
	twoRuns := writeEdited(t, base, "two.json", func(f *results.File) {
		r := f.Runs[0]
		r.Name, r.Scenario = "batch", "batch"
		f.Runs = append(f.Runs, r)
	})
	otherSuite := writeEdited(t, same, "other-suite.json", func(f *results.File) { f.Suite.Name = "another" })
	otherLoad := writeEdited(t, same, "other-load.json", func(f *results.File) { f.Runs[0].Params = map[string]string{"rate": "8"} })
	negative := writeEdited(t, same, "negative.json", func(f *results.File) { f.Runs[0].Samples.TTFT[3] = -5 })
	tests := []struct {
		name string
		args []string
		want int
	}{
		// Same distribution: pass.
		{name: "pass", args: []string{base, same}, want: exitPass},
		// 50% slower: a regression fails the gate.
		{name: "regression", args: []string{base, slow}, want: exitGate},
		// A failed assert in the current file fails the gate on its own.
		{name: "failed assert", args: []string{base, asserted}, want: exitGate},
		// Near the band: inconclusive passes by default...
		{name: "inconclusive passes", args: []string{base, near}, want: exitPass},
		// ...and fails with --fail-on inconclusive.
		{name: "fail on inconclusive", args: []string{base, near, "--fail-on", "inconclusive"}, want: exitGate},
		// A confirming rerun at baseline level clears the inconclusive verdict.
		{name: "rerun clears", args: []string{base, near, "--rerun", same, "--fail-on", "inconclusive"}, want: exitPass},
		// A current file cut short is not judged: exit 3, never a pass.
		{name: "interrupted", args: []string{base, interrupted}, want: exitInfra},
		// An invalid current run is not judged either.
		{name: "invalid run", args: []string{base, invalid}, want: exitInfra},
		// A baseline run the current file lacks fails the gate...
		{name: "missing run", args: []string{twoRuns, same}, want: exitGate},
		// ...unless the current run was narrowed on purpose.
		{name: "narrowed", args: []string{twoRuns, same, "--only", "chat"}, want: exitPass},
		// A baseline of another suite or load is refused...
		{name: "other suite", args: []string{base, otherSuite}, want: exitUsage},
		{name: "other load", args: []string{base, otherLoad}, want: exitUsage},
		// ...unless the user means it.
		{name: "other suite allowed", args: []string{base, otherSuite, "--allow-different-baseline"}, want: exitPass},
		// Negative latencies are refused, not judged an improvement.
		{name: "negative latency", args: []string{base, negative}, want: exitUsage},
		// An unreadable file is bad usage.
		{name: "bad file", args: []string{base, garbage}, want: exitUsage},
		// A missing argument is bad usage.
		{name: "one file", args: []string{base}, want: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"compare"}, tt.args...)...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
		})
	}
}

func TestCompareOutputs(t *testing.T) {
	dir := t.TempDir()
	base := writeResults(t, dir, "base.json", 100, 1, false)
	slow := writeResults(t, dir, "slow.json", 150, 3, false)
	md, js := filepath.Join(dir, "summary.md"), filepath.Join(dir, "verdicts.json")
	const url = "https://github.com/o/r/actions/runs/1/artifacts/2"
	code, _, stderr := runCLI(t, "compare", base, slow, "--markdown", md, "--json", js, "--report-url", url)
	if code != exitGate {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	b, err := os.ReadFile(md)
	// The same title as gate's, and the report linked.
	if err != nil || !strings.HasPrefix(string(b), "### llmgate · fixture: ❌ 1 regression") || !strings.Contains(string(b), "[Full HTML report]("+url+")") {
		t.Errorf("markdown %q, %v", firstLine(string(b)), err)
	}
	if code, _, stderr := runCLI(t, "compare", base, slow, "--report-url", "javascript:alert(1)"); code != exitUsage || !strings.Contains(stderr, "--report-url") {
		t.Errorf("a bad --report-url: exit %d, %s; want 2 naming the flag", code, stderr)
	}
	var v struct {
		Failed bool `json:"failed"`
		Rows   []struct {
			Metric  string `json:"metric"`
			Verdict string `json:"verdict"`
		} `json:"rows"`
	}
	b, err = os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("verdicts JSON: %v", err)
	}
	if !v.Failed || len(v.Rows) != 4 || v.Rows[0].Metric != "ttft.p95" || v.Rows[0].Verdict != "regression" {
		t.Errorf("verdicts JSON %+v", v)
	}
}

func TestImportPromoteReport(t *testing.T) {
	dir := t.TempDir()
	imported := filepath.Join(dir, "imported.json")
	code, _, stderr := runCLI(t, "import", "vllm-bench", "../../testdata/vllmbench/detailed.json", "../../testdata/vllmbench/summary.json", "-o", imported)
	if code != exitPass {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	f, err := results.ReadFile(imported)
	if err != nil || len(f.Runs) != 2 || f.Runs[0].Name != "detailed" || f.Runs[0].Samples == nil {
		t.Fatalf("imported file %+v, %v", f, err)
	}
	t.Setenv("GITHUB_SHA", "0123abc")
	baseline := filepath.Join(dir, "baseline.json")
	if code, _, stderr := runCLI(t, "baseline", "promote", imported, "--to", baseline, "--image", "vllm/vllm-openai:v0.11.0"); code != exitPass {
		t.Fatalf("promote exit %d: %s", code, stderr)
	}
	b, err := results.ReadFile(baseline)
	if err != nil || b.Provenance == nil || b.Provenance.Commit != "0123abc" || b.Provenance.Image != "vllm/vllm-openai:v0.11.0" || b.Provenance.Source != imported {
		t.Fatalf("baseline provenance %+v, %v", b.Provenance, err)
	}
	html := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", imported, "--baseline", baseline, "-o", html); code != exitPass {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(html)
	if !strings.Contains(string(page), "<svg") {
		t.Error("report has no chart")
	}
	if code, _, _ := runCLI(t, "import", "vllm-bench", "../../testdata/vllmbench/missing.json", "-o", filepath.Join(dir, "x.json")); code != exitUsage {
		t.Errorf("import of a missing file: exit %d, want 2", code)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestImportPromoteErrors checks the bad inputs of import, baseline
// promote and report exit 2 with a message that names the problem.
func TestImportPromoteErrors(t *testing.T) {
	dir := t.TempDir()
	ours := writeResults(t, dir, "ours.json", 100, 1, false)
	partial := comparetest.File(results.Environment{}, comparetest.RunSpec{Name: "chat", TTFT: 100, TPOT: 9, E2EL: 2000, OutTokPerSec: 1000, ReqPerSec: 4})
	partial.Partial = true
	partialPath := filepath.Join(dir, "partial.json")
	if err := results.WriteFile(partialPath, partial); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "other")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile("../../testdata/vllmbench/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "summary.json"), summary, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		// Two files with the same base name would give two runs of one name.
		{name: "same run name twice", args: []string{"import", "vllm-bench", "../../testdata/vllmbench/summary.json", filepath.Join(sub, "summary.json"), "-o", out}, want: "would both be run"},
		// An llmgate results file is not vllm bench output.
		{name: "import our own format", args: []string{"import", "vllm-bench", ours, "-o", out}, want: "already an llmgate results file"},
		// No output file.
		{name: "import without -o", args: []string{"import", "vllm-bench", "../../testdata/vllmbench/summary.json"}, want: "-o results.json"},
		// A partial file is refused as a baseline without --force.
		{name: "promote partial", args: []string{"baseline", "promote", partialPath, "--to", out}, want: "--force"},
		// The probe: promote X --to X overwrote its input.
		{name: "promote onto itself", args: []string{"baseline", "promote", ours, "--to", ours}, want: "would overwrite the input"},
		// Inputs over --max-input-size are refused before they are read.
		{name: "compare over the input limit", args: []string{"compare", ours, ours, "--max-input-size", "1k"}, want: "over the limit of 1024 bytes (raise it with --max-input-size)"},
		{name: "import over the input limit", args: []string{"import", "vllm-bench", "../../testdata/vllmbench/summary.json", "-o", out, "--max-input-size", "16b"}, want: "over the limit"},
		{name: "bad input limit", args: []string{"merge", ours, "-o", out, "--max-input-size", "lots"}, want: "max-input-size"},
		// baseline needs its subcommand.
		{name: "baseline without promote", args: []string{"baseline", ours}, want: "promote"},
		// report's --suite sets bands, which mean nothing without a baseline.
		{name: "report suite without baseline", args: []string{"report", ours, "--suite", "x.hcl", "-o", out}, want: "--baseline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a message containing %q", code, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed command left %s behind (%v)", out, err)
	}
}

// TestImportAppendResult checks a file of several results (vllm bench
// serve --append-result) imports as one run each, or as the one --pick
// names.
func TestImportAppendResult(t *testing.T) {
	dir := t.TempDir()
	one, err := os.ReadFile("../../testdata/vllmbench/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	sweep := filepath.Join(dir, "sweep.json")
	doc2 := strings.Replace(string(one), `"max_concurrency": 32`, `"max_concurrency": 64`, 1)
	if err := os.WriteFile(sweep, []byte(string(one)+"\n"+doc2), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "all.json")
	if code, _, stderr := runCLI(t, "import", "vllm-bench", sweep, "-o", out); code != exitPass {
		t.Fatalf("import exit %d: %s", code, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil || len(f.Runs) != 2 || f.Runs[0].Name != "sweep-1" || f.Runs[1].Params["max_concurrency"] != "64" || f.Runs[1].Imported == nil {
		t.Fatalf("imported %+v, %v", f, err)
	}
	if code, _, stderr := runCLI(t, "import", "vllm-bench", "--pick", "2", sweep, "-o", out); code != exitPass {
		t.Fatalf("--pick 2: exit %d: %s", code, stderr)
	}
	if f, err = results.ReadFile(out); err != nil || len(f.Runs) != 1 || f.Runs[0].Name != "sweep" || f.Runs[0].Params["max_concurrency"] != "64" {
		t.Fatalf("--pick 2 imported %+v, %v", f, err)
	}
	if code, _, stderr := runCLI(t, "import", "vllm-bench", "--pick", "3", sweep, "-o", out); code != exitUsage || !strings.Contains(stderr, "holds 2 result(s)") {
		t.Errorf("--pick 3: exit %d: %s", code, stderr)
	}
}

// TestCompareWide checks the comparison table fits 100 columns by default
// and that --wide adds each row's estimator and evidence.
func TestCompareWide(t *testing.T) {
	dir := t.TempDir()
	base := writeResults(t, dir, "base.json", 100, 1, false)
	slow := writeResults(t, dir, "slow.json", 150, 3, false)
	_, narrow, _ := runCLI(t, "compare", base, slow)
	_, wide, _ := runCLI(t, "compare", base, slow, "--wide")
	table, _, _ := strings.Cut(narrow, "\n\n")
	for _, l := range strings.Split(table, "\n") {
		if len([]rune(l)) > 100 {
			t.Errorf("a line of the default table is %d columns wide:\n%s", len([]rune(l)), l)
		}
	}
	for _, detail := range []string{"harrell-davis", "n=300+300", "CI ["} {
		if strings.Contains(table, detail) {
			t.Errorf("the default table holds the detail %q:\n%s", detail, table)
		}
		if !strings.Contains(wide, detail) {
			t.Errorf("compare --wide lacks %q:\n%s", detail, wide)
		}
	}
}
