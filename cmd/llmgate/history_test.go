package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/golden"
	"github.com/llmgate/llmgate/internal/history/historytest"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

const historySuite = "testdata/history.hcl"

// runHistorySuite runs testdata/history.hcl on the simulator with the
// engine slowed by slowdown and returns the results file's path.
func runHistorySuite(t *testing.T, dir, name string, slowdown float64) string {
	t.Helper()
	out := filepath.Join(dir, name)
	code, stdout, stderr := runCLI(t, "run", historySuite, "-o", out, "--var", fmt.Sprintf("slowdown=%g", slowdown))
	if code != exitPass {
		t.Fatalf("run (slowdown %g): exit %d\n%s\n%s", slowdown, code, stdout, stderr)
	}
	return out
}

// historyStores are a fresh directory store and, when the test server is
// there, a fresh PostgreSQL database.
func historyStores(t *testing.T) map[string]string {
	stores := map[string]string{"dir": filepath.Join(t.TempDir(), "perf-history")}
	if os.Getenv(historytest.PostgresEnv) != "" || os.Getenv("CI") == "true" {
		stores["postgres"] = historytest.Postgres(t)
	}
	return stores
}

// addAll adds files to store, each at commit <prefix><i>.
func addAll(t *testing.T, store, prefix string, files []string) {
	t.Helper()
	for i, f := range files {
		commit := fmt.Sprintf("%s%02d%s", prefix, i+1, strings.Repeat("0", 40-len(prefix)-2)) // entry i+1
		if code, _, stderr := runCLI(t, "history", "add", f, "--store", store, "--commit", commit, "--ref", "refs/heads/main"); code != exitPass {
			t.Fatalf("history add %s: exit %d\n%s", f, code, stderr)
		}
	}
}

// TestHistoryRealRuns builds histories from real runs of the simulator —
// pure noise, a planted step (every engine step 30% slower) and a slow
// drift (3% slower each run) — in both stores, and checks what history
// check finds in each, that both stores print the same, and that the gate
// against the rolling baseline sees the step's level as main's.
func TestHistoryRealRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator 20 times")
	}
	t.Setenv("GITHUB_ACTIONS", "")
	dir := t.TempDir()
	var base, step, drift []string
	for i := 0; i < 8; i++ {
		base = append(base, runHistorySuite(t, dir, fmt.Sprintf("base%d.json", i), 1))
	}
	for i := 0; i < 5; i++ {
		step = append(step, runHistorySuite(t, dir, fmt.Sprintf("step%d.json", i), 1.3))
	}
	for i := 0; i < 6; i++ {
		drift = append(drift, runHistorySuite(t, dir, fmt.Sprintf("drift%d.json", i), 1+0.03*float64(i+1)))
	}
	histories := []struct {
		name   string
		files  []string
		exit   int
		expect string // in the output
	}{
		{"noise", base, exitPass, "✅ no change point in 2 series"},
		{"step", append(append([]string{}, base...), step...), exitGate, "a080000 → a090000"},
		{"drift", append(append([]string{}, base...), drift...), exitGate, "regression"},
	}
	outputs := map[string]map[string]string{}
	for kind, prefix := range historyStores(t) {
		outputs[kind] = map[string]string{}
		for _, h := range histories {
			store := prefix
			if kind == "dir" {
				store = filepath.Join(prefix, h.name)
			}
			if kind == "postgres" {
				store = historytest.Postgres(t)
			}
			addAll(t, store, "a", h.files)
			code, stdout, stderr := runCLI(t, "history", "check", "--store", store, "--suite", historySuite)
			t.Logf("%s %s history:\n%s", kind, h.name, stdout)
			if code != h.exit || !strings.Contains(stdout, h.expect) {
				t.Errorf("%s %s history: exit %d (want %d), want %q in:\n%s\n%s", kind, h.name, code, h.exit, h.expect, stdout, stderr)
			}
			outputs[kind][h.name] = strings.ReplaceAll(strings.ReplaceAll(stdout, "'"+store+"'", "STORE"), store, "STORE")
			if h.name == "step" {
				checkStepGate(t, store, dir)
			}
		}
	}
	if pg := outputs["postgres"]; pg != nil {
		for name, out := range outputs["dir"] {
			if pg[name] != out {
				t.Errorf("%s history: the stores printed differently\ndir:\n%s\npostgres:\n%s", name, out, pg[name])
			}
		}
	}
}

// checkStepGate gates a run at the step's level against the history that
// ends with the step: the rolling baseline is the median of the five
// newest healthy entries, all slow, so the slow run passes; a run at the
// old level is an improvement.
func checkStepGate(t *testing.T, store, dir string) {
	t.Helper()
	out := filepath.Join(dir, "gate.json")
	code, stdout, stderr := runCLI(t, "gate", historySuite, "--baseline", "history:"+store, "-o", out, "--var", "slowdown=1.3", "--rerun=false")
	if code != exitPass || !strings.Contains(stderr, "rolling baseline from") || !strings.Contains(stderr, "median of 5") {
		t.Errorf("gate at the step's level against the history: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "✅ no regression") {
		t.Errorf("a run at main's level regressed against the rolling baseline:\n%s", stdout)
	}
	code, stdout, _ = runCLI(t, "gate", historySuite, "--baseline", "history:"+store, "-o", out, "--rerun=false")
	if code != exitPass || !strings.Contains(stdout, "improvement") {
		t.Errorf("gate at the old level against the slow history: exit %d, want an improvement\n%s", code, stdout)
	}
}

// plantedHistory writes 24 results files made from one real run: entry i
// is the run with every per-request latency scaled by a level, 1 for the
// first 12 entries and 1.08 from entry 13 on, times lognormal noise of 2%
// (σ of the log), throughput divided by it; an hour apart. Scaling the
// same requests keeps the run's real structure and makes the noise the
// planted one alone.
func plantedHistory(t *testing.T, dir, real string) []string {
	return plantedStep(t, dir, real, 13, 13)
}

// plantedStep is plantedHistory with the +8% step from entry `from` on
// (1-based) and the noise drawn from seed.
func plantedStep(t *testing.T, dir, real string, from int, seed uint64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 24))
	var files []string
	for i := 0; i < 24; i++ {
		f, err := results.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		level := math.Exp(0.02 * rng.NormFloat64())
		if i >= from-1 {
			level *= 1.08
		}
		f.Created = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		f.Environment.Host = ""
		for r := range f.Runs {
			scaleRun(&f.Runs[r], level)
		}
		path := filepath.Join(dir, fmt.Sprintf("entry%02d.json", i+1))
		if err := results.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	return files
}

// scaleRun makes run level times slower: every latency sample, the
// summaries computed from them, and the rates.
func scaleRun(run *results.Run, level float64) {
	s := run.Samples
	for _, xs := range [][]float64{s.TTFT, s.TPOT, s.E2EL} {
		for i := range xs {
			xs[i] *= level
		}
	}
	run.Summary.TTFT, run.Summary.TPOT, run.Summary.E2EL = results.ComputeStats(s.TTFT), results.ComputeStats(s.TPOT), results.ComputeStats(s.E2EL)
	run.Summary.ITL = results.ComputeStats(s.TPOT)
	run.Summary.Throughput.Requests /= level
	run.Summary.Throughput.OutputTokens /= level
	run.Summary.Throughput.TotalTokens /= level
	run.Requests, run.Samples.ITL = nil, nil
}

// TestHistoryPlantedStep is the example: a +8% step at entry 13 of
// 24 under 2% noise, where each consecutive pair of entries is within the
// 10% band, so no pull request's gate failed; history check finds it, in
// both stores alike. The entries are made from a real run of
// testdata/history.hcl on the simulator, kept in testdata/history so that
// the output is a golden file. (The noise draw of entry 12 is +5.8%, 2.9σ,
// so the change is placed between entries 11 and 12, one early: the data
// say so.)
func TestHistoryPlantedStep(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := t.TempDir()
	files := plantedHistory(t, dir, "testdata/history/real-run.json")
	cfg := compare.DefaultConfig()
	cfg.Tolerances = []compare.Tolerance{{Metric: "tpot.p50", Relative: true, Amount: 0.10}, {Metric: "e2el.p50", Relative: true, Amount: 0.10}}
	for i := 1; i < len(files); i++ {
		a, _ := results.ReadFile(files[i-1])
		b, _ := results.ReadFile(files[i])
		if c := compare.Compare(a, b, cfg); c.Decide() == compare.DecisionFail {
			t.Fatalf("the gate failed between entries %d and %d: the planted history should pass every gate", i, i+1)
		}
	}
	var outs []string
	for kind, store := range historyStores(t) {
		addAll(t, store, "c", files)
		code, stdout, stderr := runCLI(t, "history", "check", "--store", store, "--suite", historySuite)
		if code != exitGate {
			t.Errorf("%s: exit %d, want 1\n%s\n%s", kind, code, stdout, stderr)
		}
		out := strings.ReplaceAll(strings.ReplaceAll(stdout, "'"+store+"'", "STORE"), store, "STORE")
		if kind == "dir" {
			golden.Check(t, "testdata/history/planted-step.golden", out)
		}
		outs = append(outs, out)
		// Accepting both change points makes the check pass.
		for _, m := range []string{"tpot.p50", "e2el.p50"} {
			if code, _, stderr := runCLI(t, "history", "accept", "--store", store, "--suite", historySuite, "--run", "chat", "--metric", m, "--at", "c1200", "--reason", "planted", "--by", "test"); code != exitPass {
				t.Fatalf("accept: exit %d\n%s", code, stderr)
			}
		}
		if code, stdout, _ := runCLI(t, "history", "check", "--store", store, "--suite", historySuite); code != exitPass || !strings.Contains(stdout, "regression (accepted)") {
			t.Errorf("%s: after accepting, exit %d\n%s", kind, code, stdout)
		}
	}
	if len(outs) == 2 && outs[0] != outs[1] {
		t.Errorf("the stores printed differently:\n%s\n%s", outs[0], outs[1])
	}
}

// TestHistoryRecentStep plants the +8% step at entry 20 of 24, so that
// only 5 entries follow it, with a noise draw where E-divisive's test is
// at its edge: it finds the step in tpot.p50 (p=0.003, the least p its
// 374 permutations give) and not in e2el.p50, whose permutations differ,
// where the recent-step test finds it; check reports both alike, the
// second marked (recent).
func TestHistoryRecentStep(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := t.TempDir()
	files := plantedStep(t, dir, "testdata/history/real-run.json", 20, 35)
	var outs []string
	for kind, store := range historyStores(t) {
		addAll(t, store, "r", files)
		code, stdout, stderr := runCLI(t, "history", "check", "--store", store, "--suite", historySuite)
		if code != exitGate {
			t.Errorf("%s: exit %d, want 1\n%s\n%s", kind, code, stdout, stderr)
		}
		if !strings.Contains(stdout, "(recent)") {
			t.Errorf("%s: no change point of the recent-step test:\n%s", kind, stdout)
		}
		out := strings.ReplaceAll(strings.ReplaceAll(stdout, "'"+store+"'", "STORE"), store, "STORE")
		if kind == "dir" {
			golden.Check(t, "testdata/history/recent-step.golden", out)
		}
		outs = append(outs, out)
		// --last 5 keeps it: its new level is the newest 5 entries.
		if code, stdout, _ := runCLI(t, "history", "check", "--store", store, "--suite", historySuite, "--last", "5"); code != exitGate || !strings.Contains(stdout, "r190000 → r200000") {
			t.Errorf("%s --last 5: exit %d\n%s", kind, code, stdout)
		}
	}
	if len(outs) == 2 && outs[0] != outs[1] {
		t.Errorf("the stores printed differently:\n%s\n%s", outs[0], outs[1])
	}
}

// TestHistoryHostileNames adds results whose suite, run and ref names
// carry terminal escapes, workflow commands and markdown, and checks that
// list, check, the markdown summary and the trend page print them inert.
func TestHistoryHostileNames(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := t.TempDir()
	store := filepath.Join(dir, "h")
	const suiteName, runName = "evil\x1b[2J\n::error::pwned", "chat ![x](https://x.example/a.png) @octocat <b>"
	for i := 0; i < 16; i++ {
		ttft := 100.0
		if i >= 8 {
			ttft = 160
		}
		path := writeResults(t, dir, fmt.Sprintf("r%d.json", i), ttft, uint64(i+1), false)
		edited := writeEdited(t, path, fmt.Sprintf("e%d.json", i), func(f *results.File) {
			f.Suite.Name, f.Runs[0].Name, f.Runs[0].Scenario = suiteName, runName, runName
			f.Environment.GitRef = "refs/heads/\x1b]8;;https://x.example\x07main"
			f.Created = time.Date(2026, 11, 2, i, 0, 0, 0, time.UTC)
			if i == 3 {
				f.Runs[0].Status, f.Runs[0].InvalidReasons = results.StatusInvalid, []string{"achieved rate 2/s below planned 4/s"}
			}
		})
		if code, _, stderr := runCLI(t, "history", "add", edited, "--store", store, "--commit", fmt.Sprintf("%07x%033d", 0xabc0000+i, 0)); code != exitPass {
			t.Fatalf("add: exit %d\n%s", code, stderr)
		}
	}
	_, list, _ := runCLI(t, "history", "list", "--store", store)
	code, check, _ := runCLI(t, "history", "check", "--store", store, "--markdown", filepath.Join(dir, "sum.md"))
	if code != exitGate || !strings.Contains(check, "regression") {
		t.Fatalf("check: exit %d\n%s", code, check)
	}
	if code, out, stderr := runCLI(t, "history", "report", "--store", store, "-o", filepath.Join(dir, "trend.html")); code != exitPass {
		t.Fatalf("report: exit %d\n%s\n%s", code, out, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "sum.md"))
	page, _ := os.ReadFile(filepath.Join(dir, "trend.html"))
	for name, out := range map[string]string{"list": list, "check": check, "markdown": string(md), "html": string(page)} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s prints an escape sequence:\n%q", name, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") {
				t.Errorf("%s starts a line with a workflow command: %q", name, line)
			}
		}
	}
	// In the markdown the run's name is a code span, where GitHub renders
	// no image, mention or tag; outside it, it must not appear.
	if n, code := strings.Count(string(md), "![x]("), strings.Count(string(md), untrusted.Code(runName)); n == 0 || n != code {
		t.Errorf("the markdown shows the run's name outside a code span:\n%s", md)
	}
	if strings.Contains(string(page), "<b>") {
		t.Errorf("the page renders the run's name as HTML")
	}
	// The page marks the change point with the commits either side, and
	// draws the invalid run apart with its reason.
	for _, want := range []string{`class="rule"`, "abc0007→abc0008", `class="mark"`, "achieved rate 2/s below planned 4/s"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the trend page lacks %q", want)
		}
	}
	if !strings.Contains(check, "Not used as evidence (1): abc0003") {
		t.Errorf("check does not name the invalid entry:\n%s", check)
	}
}

// TestHistoryUsage checks the exit codes of the ways history is misused.
func TestHistoryUsage(t *testing.T) {
	dir := t.TempDir()
	res := writeResults(t, dir, "r.json", 100, 1, false)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{"), 0o644)
	store := filepath.Join(dir, "h")
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"history"}, exitUsage, "needs a subcommand"},
		{[]string{"history", "chekc"}, exitUsage, `did you mean "check"`},
		{[]string{"history", "add", "--store", store}, exitUsage, "needs RESULTS"},
		{[]string{"history", "add", garbage, "--store", store}, exitUsage, "reading"},
		{[]string{"history", "add", res, "--store", store}, exitPass, "added"},
		{[]string{"history", "add", res, "--store", store}, exitPass, "already in the history"},
		{[]string{"history", "check", "--store", filepath.Join(dir, "typo")}, exitUsage, "does not exist"},
		{[]string{"history", "check", "--store", store, "--min-change", "3"}, exitUsage, "percentage"},
		{[]string{"history", "check", "--store", store}, exitPass, "no change point"},
		{[]string{"history", "accept", "--store", store, "--suite", "fixture", "--run", "chat", "--metric", "ttft.p95", "--at", "abcd"}, exitUsage, "--reason"},
		{[]string{"history", "accept", "--store", store, "--suite", "fixture", "--run", "chat", "--metric", "ttft.p95", "--at", "abcd", "--reason", "x", "--by", "me"}, exitUsage, "no entry"},
		{[]string{"history", "accept", "--store", store, "--suite", "fixture", "--run", "chat", "--metric", "nope", "--at", "abcd", "--reason", "x"}, exitUsage, "not a metric"},
		{[]string{"history", "check", "--store", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"}, exitInfra, "history store postgres://nobody@127.0.0.1:1/none"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != tc.want || !strings.Contains(stdout+stderr, tc.says) {
			t.Errorf("%s: exit %d (want %d), want %q in:\n%s%s", strings.Join(tc.args, " "), code, tc.want, tc.says, stdout, stderr)
		}
	}
}
