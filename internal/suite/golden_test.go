package suite

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/golden"
)

// repoRoot is where llmgate validate is usually run from; golden files show
// paths relative to it, exactly as `llmgate validate testdata/...` prints them.
const repoRoot = "../.."

// loadAsFromRoot loads a suite under the repository root, naming it by its
// path relative to the root.
func loadAsFromRoot(t *testing.T, rel string) (*Suite, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	s, diags := loadSource(rel, src, Options{Getenv: func(string) string { return "" }})
	var buf bytes.Buffer
	if err := WriteDiagnostics(&buf, s.Files, diags, false); err != nil {
		t.Fatal(err)
	}
	if !diags.HasErrors() {
		t.Errorf("%s: no error reported", rel)
	}
	return s, buf.String()
}

func brokenSuites(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "testdata/suites/broken/*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 12 {
		t.Fatalf("found %d broken suites, want at least 12", len(files))
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(repoRoot, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	return rel
}

// TestBrokenSuitesGolden renders each broken suite's diagnostics and
// compares them with its .golden file; run with -update to rewrite them.
func TestBrokenSuitesGolden(t *testing.T) {
	for _, rel := range brokenSuites(t) {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			_, got := loadAsFromRoot(t, rel)
			golden.Check(t, filepath.Join(repoRoot, strings.TrimSuffix(rel, ".hcl")+".golden"), got)
		})
	}
}

// TestBrokenSuitesFirstError pins where the first error of each broken
// suite points and what it says, so a regression in ranges is caught even
// when goldens are regenerated carelessly.
func TestBrokenSuitesFirstError(t *testing.T) {
	tests := []struct {
		file    string
		pos     string // line:col of the first error
		summary string
	}{
		// A top-level block type misspelled.
		{file: "unknown_block.hcl", pos: "2:1", summary: "Unsupported block type"},
		// A load attribute misspelled.
		{file: "unknown_attribute.hcl", pos: "4:5", summary: "Unsupported argument"},
		// rate = -5.
		{file: "negative_rate.hcl", pos: "4:16", summary: "Invalid rate"},
		// burstiness = 0.
		{file: "zero_burstiness.hcl", pos: "5:18", summary: "Invalid burstiness"},
		// concurrency = 0.
		{file: "zero_concurrency.hcl", pos: "4:19", summary: "Invalid concurrency"},
		// Neither requests nor duration.
		{file: "no_end.hcl", pos: "3:3", summary: "Run without an end"},
		// input_tokens = 0.
		{file: "zero_input_tokens.hcl", pos: "5:21", summary: "Invalid input length"},
		// --gpu-memory-utilization 95 in server_args.
		{file: "gpu_memory_out_of_range.hcl", pos: "8:17", summary: "Invalid --gpu-memory-utilization"},
		// A sweep point of gpu_memory_utilization = 1.2.
		{file: "sweep_gpu_memory.hcl", pos: "8:47", summary: "Invalid gpu_memory_utilization"},
		// warmup above requests.
		{file: "warmup_exceeds_requests.hcl", pos: "6:19", summary: "Warmup larger than the run"},
		// ramp_up in an open loop.
		{file: "ramp_up_open_loop.hcl", pos: "6:16", summary: "ramp_up in an open loop"},
		// ttft.p96 in an assert.
		{file: "unknown_metric.hcl", pos: "8:21", summary: "Unknown metric"},
		// A tolerance label that is no metric.
		{file: "unknown_tolerance_metric.hcl", pos: "10:13", summary: "Unknown metric"},
		// max_regression = "-5%".
		{file: "negative_tolerance.hcl", pos: "10:43", summary: "Invalid tolerance"},
		// "+200ms" on a throughput metric.
		{file: "time_tolerance_on_throughput.hcl", pos: "10:59", summary: "Invalid tolerance"},
		// Two scenarios named chat: the second is blamed.
		{file: "duplicate_scenario.hcl", pos: "9:1", summary: "Duplicate scenario block"},
		// target = server.vlm.
		{file: "undefined_target.hcl", pos: "8:12", summary: "Reference to undefined target"},
		// var.imag.
		{file: "undefined_variable.hcl", pos: "5:11", summary: "Reference to undeclared variable"},
		// A string among concurrency values.
		{file: "sweep_wrong_type.hcl", pos: "3:29", summary: "Sweep values of the wrong type"},
		// concurrency = [].
		{file: "empty_sweep.hcl", pos: "3:25", summary: "Empty sweep"},
		// sweep.concurency.
		{file: "undefined_sweep_key.hcl", pos: "5:19", summary: "Reference to undefined sweep key"},
		// duration = "3 minutes".
		{file: "ab_mode.hcl", pos: "3:8", summary: "Invalid A/B mode"},
		{file: "bad_duration.hcl", pos: "5:16", summary: "Invalid duration"},
		// A number as a condition.
		{file: "assert_not_bool.hcl", pos: "8:17", summary: "Invalid assert condition"},
		// Six mistakes; the first is the workload kind.
		{file: "many_mistakes.hcl", pos: "4:21", summary: "Unknown workload kind"},
		// An unclosed block.
		{file: "syntax_error.hcl", pos: "2:17", summary: "Unclosed configuration block"},
		// Two arguments in a one-line block.
		{file: "one_line_block.hcl", pos: "4:27", summary: "Invalid single-argument block definition"},
		// An assert with no condition.
		{file: "missing_condition.hcl", pos: "7:3", summary: "Missing required argument"},
		// 70 nested parentheses: refused before parsing.
		{file: "deep_nesting.hcl", pos: "4:81", summary: "Nesting too deep"},
		// A sweep value with a comma and an equals sign.
		{file: "sweep_value_separator.hcl", pos: "4:31", summary: "Unusable sweep value"},
		// 299 additions in one expression: refused before parsing.
		{file: "long_expression.hcl", pos: "4:532", summary: "Expression too long"},
		// vary = "concurency".
		{file: "capacity_bad_vary.hcl", pos: "5:12", summary: "Invalid capacity variable"},
		// max below min, fractional users, step = 0.
		{file: "capacity_bounds.hcl", pos: "7:12", summary: "Invalid capacity bound"},
		// A capacity search with a sweep.
		{file: "capacity_with_sweep.hcl", pos: "10:3", summary: "Capacity with a sweep"},
		// capacity.concurrency in a scenario without a search.
		{file: "capacity_without_search.hcl", pos: "8:17", summary: "Capacity without a search"},
		// rate in a concurrency search, the answer in its own SLO, the other variable's answer.
		{file: "capacity_slo.hcl", pos: "5:5", summary: "Rate with a concurrency search"},
		// dcgm_exporter without a page, then without a scheme.
		{file: "dcgm_exporter_url.hcl", pos: "7:19", summary: "Invalid DCGM exporter URL"},
		// length_bucket.lnog in an assert; then a statistic buckets lack, an unknown quartile, a bucket of a scenario without buckets, and a tolerance's misspelled bucket.
		{file: "length_bucket_refs.hcl", pos: "14:17", summary: "Unknown length bucket"},
		{file: "mix_and_stages.hcl", pos: "8:3", summary: "Both workload and mix"},
		// Two names for three buckets; then a name that is no identifier, a repeated name, edges and quantiles both, one quantile, quantiles of a conversation, names without buckets.
		{file: "length_bucket_names.hcl", pos: "9:27", summary: "Wrong number of bucket names"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			rel := "testdata/suites/broken/" + tt.file
			_, out := loadAsFromRoot(t, rel)
			first, _, _ := strings.Cut(out, "\n")
			want := rel + ":" + tt.pos + ": Error: " + tt.summary
			if first != want {
				t.Errorf("first line\n got: %s\nwant: %s", first, want)
			}
		})
	}
	for _, rel := range brokenSuites(t) {
		if !covered[filepath.Base(rel)] {
			t.Errorf("%s has no row in this table", rel)
		}
	}
}

// TestManyMistakesOnePass checks that every mistake of a file is reported at once.
func TestManyMistakesOnePass(t *testing.T) {
	_, out := loadAsFromRoot(t, "testdata/suites/broken/many_mistakes.hcl")
	for _, want := range []string{"Unknown workload kind", "Invalid output length", "Invalid concurrency", "Invalid rate", "Warmup larger than the run", "Did you mean \"ttft.p95\"?"} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, out)
		}
	}
}
