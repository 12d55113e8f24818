package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/runspec"
)

const threeRows = `{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 700, "output_length": 6, "hash_ids": [1, 3]}
{"timestamp": 3000, "input_length": 100, "output_length": 7, "hash_ids": [4]}
`

// loadWithTrace writes src as suite.hcl and files beside it, and loads it.
func loadWithTrace(t *testing.T, src string, files map[string]string) (*Suite, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path, Options{Getenv: func(string) string { return "" }})
}

func traceScenario(workload, load string) string {
	return `scenario "replay" {
  workload {
    kind = "trace"
` + workload + `
  }
  load {
` + load + `
  }
}
`
}

func TestTraceWorkloadDecoded(t *testing.T) {
	s, diags := loadWithTrace(t, traceScenario(`
    file       = "traces/t.jsonl"
    format     = "mooncake"
    time_scale = 2
    start      = "0s"
    block_size = 256`, `
    requests    = 2
    warmup      = 1
    concurrency = 4`), map[string]string{"traces/t.jsonl": threeRows})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r := s.Plan().Runs()[0]
	w := r.Load.Workload
	if w.Kind != runspec.WorkloadTrace || w.TraceFormat != "mooncake" || w.TimeScale != 2 || w.TraceStart != 0 || w.BlockSize != 256 {
		t.Errorf("workload %+v", w)
	}
	if !filepath.IsAbs(w.TracePath) || !strings.HasSuffix(w.TracePath, filepath.Join("traces", "t.jsonl")) {
		t.Errorf("TracePath %q, want the trace's absolute path", w.TracePath)
	}
	if r.Trace == nil || len(r.Trace.Rows) != 3 {
		t.Fatalf("run's trace %+v, want its 3 rows", r.Trace)
	}
	if !r.Load.OpenLoop() || r.Load.Rate != 0 || r.Load.Concurrency != 4 {
		t.Errorf("load %+v: want an open loop by the trace, capped at 4", r.Load)
	}
}

// TestTraceReadOnce: the runs of a sweep replay one reading of the file.
func TestTraceReadOnce(t *testing.T) {
	s, diags := loadWithTrace(t, `scenario "replay" {
  sweep { speed = [1, 2] }
  workload {
    kind       = "trace"
    file       = "t.jsonl"
    format     = "mooncake"
    time_scale = sweep.speed
  }
  load { requests = 3 }
}
`, map[string]string{"t.jsonl": threeRows})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	runs := s.Plan().Runs()
	if len(runs) != 2 || runs[0].Trace != runs[1].Trace || runs[1].Load.Workload.TimeScale != 2 {
		t.Errorf("runs %d, traces %p %p: want two runs of one trace", len(runs), runs[0].Trace, runs[1].Trace)
	}
}

func TestTraceWorkloadErrors(t *testing.T) {
	const file = `
    file   = "t.jsonl"
    format = "mooncake"`
	for _, c := range []struct {
		name, workload, load string
		files                map[string]string
		want                 string
	}{
		{"rate", file, "requests = 2\n rate = 5", nil, "rate with a trace"},
		{"burstiness", file, "requests = 2\n burstiness = 1", nil, "burstiness with a trace"},
		{"ramp", file, "requests = 2\n ramp {\n over = \"1m\"\n }", nil, "Ramp with a trace"},
		{"ramp_up", file, "requests = 2\n concurrency = 2\n ramp_up = \"1s\"", nil, "ramp_up in an open loop"},
		{"no end", file, "concurrency = 2", nil, "Run without an end"},
		{"no file", `format = "mooncake"`, "requests = 2", nil, `kind = "trace" needs file`},
		{"no format", `file = "t.jsonl"`, "requests = 2", nil, `kind = "trace" needs format: one of mooncake, azure, jsonl`},
		{"unknown format", "file = \"t.jsonl\"\n format = \"mooncak\"", "requests = 2", nil, `format = "mooncak": a trace is one of mooncake, azure, jsonl`},
		{"time_scale", file + "\n time_scale = 0", "requests = 2", nil, "time_scale = 0: it divides"},
		{"start negative", file + "\n start = \"-1s\"", "requests = 2", nil, `start = "-1s": it must not be negative`},
		{"start number", file + "\n start = 5", "requests = 2", nil, "start must be a duration string"},
		{"start past the end", file + "\n start = \"1m\"", "requests = 2", nil, "start = 1m0s is after the trace's last request, 3s after its first"},
		{"block_size", file + "\n block_size = 0", "requests = 2", nil, "block_size = 0"},
		{"too many requests", file + "\n start = \"1s\"", "requests = 2\n warmup = 1", nil, "requests = 2 and warmup = 1 needs 3 rows, but the trace has 2 from start = 1s; ask for at most 1"},
		{"missing file", "file = \"nope.jsonl\"\n format = \"mooncake\"", "requests = 2", nil, "nope.jsonl"},
		{"outside", "file = \"/etc/passwd\"\n format = \"azure\"", "requests = 2", nil, "is outside"},
		{"broken", file, "requests = 2", map[string]string{"t.jsonl": threeRows + "{\"timestamp\": 1}\n"}, "t.jsonl:4: no input_length"},
		{"wrong format", "file = \"t.jsonl\"\n format = \"azure\"", "requests = 2", nil, "t.jsonl:1: quoted CSV fields are not read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := c.files
			if files == nil {
				files = map[string]string{"t.jsonl": threeRows}
			}
			_, diags := loadWithTrace(t, traceScenario(c.workload, c.load), files)
			var errs []string
			for _, d := range diags.Errs() {
				errs = append(errs, d.Error())
			}
			if !strings.Contains(strings.Join(errs, "\n"), c.want) {
				t.Errorf("errors:\n%s\nwant one containing %q", strings.Join(errs, "\n"), c.want)
			}
		})
	}
}

// TestTraceWorkloadWarnings: lengths set beside a trace are ignored, and
// said to be.
func TestTraceWorkloadWarnings(t *testing.T) {
	s, diags := loadWithTrace(t, traceScenario(`
    file          = "t.jsonl"
    format        = "mooncake"
    input_tokens  = 100
    output_tokens = 10`, "requests = 3"), map[string]string{"t.jsonl": threeRows})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	warned := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning && strings.Contains(d.Detail, `has no effect with kind = "trace"`) {
			warned++
		}
	}
	w := s.Plan().Runs()[0].Load.Workload
	if warned != 2 || w.InputTokens != 0 || w.OutputTokens != 0 {
		t.Errorf("%d warnings, lengths %d/%d: want 2 warnings and no lengths", warned, w.InputTokens, w.OutputTokens)
	}
}

func TestTracePlanText(t *testing.T) {
	s, diags := loadWithTrace(t, traceScenario(`
    file       = "t.jsonl"
    format     = "mooncake"
    time_scale = 2`, "requests = 2\n concurrency = 8"), map[string]string{"t.jsonl": threeRows})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var b strings.Builder
	if err := s.Plan().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	// rows 1 and 2 share their first block of 512 tokens: 1024 of 1300
	// prompt tokens are in it, 512 reusable (row 2's); with row 3, 1024
	// of 1400
	for _, want := range []string{
		"load:     open loop at the trace's timestamps (time_scale 2), at most 8 in flight, 2 requests",
		"workload: trace, mooncake file " + s.Plan().Runs()[0].Load.Workload.TracePath + ", hash ids of 512-token blocks",
		"trace:    this run: 2 requests over 1s, mean 650 input / 6 output tokens, 78.8% of prompt tokens in shared blocks (39.4% reusable as a cached prefix), replayed in 500ms",
		"whole file: 3 requests over 3s, mean 467 input / 6 output tokens, 73.1% of prompt tokens in shared blocks (36.6% reusable as a cached prefix)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan:\n%s\nwant %q", b.String(), want)
		}
	}
}

func TestTraceRateSearchRefused(t *testing.T) {
	_, diags := loadWithTrace(t, `scenario "replay" {
  workload {
    kind   = "trace"
    file   = "t.jsonl"
    format = "mooncake"
  }
  load { requests = 3 }
  capacity {
    vary = "rate"
    min  = 1
    max  = 10
    slo  = ttft.p95 < 500
  }
}
`, map[string]string{"t.jsonl": threeRows})
	var errs []string
	for _, d := range diags.Errs() {
		errs = append(errs, d.Error())
	}
	if !strings.Contains(strings.Join(errs, "\n"), "a capacity search has no rate to vary") {
		t.Errorf("errors:\n%s\nwant the rate search refused", strings.Join(errs, "\n"))
	}
}
