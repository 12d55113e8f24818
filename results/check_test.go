package results

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestReadRejectsImpossibleFiles checks that Read refuses files no
// measurement can produce, naming the run and field, and accepts a sane one.
func TestReadRejectsImpossibleFiles(t *testing.T) {
	good := func() *File {
		return &File{Version: SchemaVersion, Runs: []Run{{Name: "chat", Scenario: "chat", Status: StatusOK,
			Summary: Summary{TTFT: Stats{N: 2, Mean: 10, Median: 10, Min: 9, Max: 11, P50: 10, P90: 11, P95: 11, P99: 11, P999: 11},
				Throughput: Throughput{Requests: 2}, Requests: Requests{Completed: 2}},
			Samples: &Samples{TTFT: []float64{9, 11}, ITL: NewHistogram()}}}}
	}
	tests := []struct {
		name string
		edit func(*File)
		want string // "" for a file that reads
	}{
		{name: "sane", edit: func(*File) {}},
		{name: "duplicate names", edit: func(f *File) { f.Runs = append(f.Runs, f.Runs[0]) }, want: `run "chat": the name is used by runs[0] and runs[1]`},
		{name: "no name", edit: func(f *File) { f.Runs[0].Name = "" }, want: "runs[0]: the run has no name"},
		{name: "unknown status", edit: func(f *File) { f.Runs[0].Status = "great" }, want: `unknown status "great"`},
		{name: "unknown failure kind", edit: func(f *File) {
			f.Runs[0].Requests = &RequestLog{StartUS: []int64{0}, TTFTUS: []int64{1}, E2ELUS: []int64{2}, ITLMaxUS: []int64{1}, InputTokens: []int{1}, OutputTokens: []int{1},
				Failures: []RequestFailure{{Index: 0, Kind: "oom"}}}
		}, want: `requests.failures: request 0 has the unknown kind "oom"`},
		{name: "capacity kinds", edit: func(f *File) {
			f.Runs[0].Capacity = &Capacity{Vary: "users", Probes: []Probe{{Status: StatusOK, Stopped: "bored"}}}
		}, want: `capacity.vary "users" is not "concurrency" or "rate"`},
		{name: "capacity probe stop", edit: func(f *File) {
			f.Runs[0].Capacity = &Capacity{Vary: VaryRate, Probes: []Probe{{Status: StatusOK, Stopped: "bored"}}}
		}, want: `capacity.probes[0]: unknown stop "bored"`},
		{name: "capacity probe status", edit: func(f *File) {
			f.Runs[0].Capacity = &Capacity{Vary: VaryRate, Probes: []Probe{{Status: "fine", Stopped: ProbeCannotMeet}}}
		}, want: `capacity.probes[0]: unknown status "fine"`},
		{name: "capacity answer", edit: func(f *File) {
			f.Runs[0].Summary.Capacity = &CapacityAnswer{Vary: "users"}
		}, want: `summary.capacity.vary "users"`},
		{name: "sane capacity", edit: func(f *File) {
			f.Runs[0].Capacity = &Capacity{Vary: VaryRate, Probes: []Probe{{Status: StatusOK, Stopped: ProbeCannotMeet}, {Status: StatusFailed}}}
			f.Runs[0].Summary.Capacity = &CapacityAnswer{Vary: VaryRate}
		}},
		{name: "negative sample", edit: func(f *File) { f.Runs[0].Samples.TTFT[1] = -3 }, want: "samples.ttft[1] = -3: a latency (ms) cannot be negative"},
		{name: "negative p95", edit: func(f *File) { f.Runs[0].Summary.TTFT.P95 = -1 }, want: "summary.ttft.p95 = -1"},
		{name: "absurd latency", edit: func(f *File) { f.Runs[0].Summary.E2EL.Max = 1e12 }, want: "summary.e2el.max = 1e+12: a latency (ms) above"},
		{name: "ratio above one", edit: func(f *File) { f.Runs[0].Summary.ErrorRate = 1.5 }, want: "summary.error_rate = 1.5"},
		{name: "negative count", edit: func(f *File) { f.Runs[0].Summary.Requests.Failed = -1 }, want: "summary.requests.failed = -1: a count cannot be negative"},
		{name: "empty answers", edit: func(f *File) { f.Runs[0].Summary.Requests.EmptyAnswers = 1 }},
		{name: "gate verdict", edit: func(f *File) { f.Gate = &GateVerdict{Decision: "fail", Metrics: 2, Regressions: 1, Inconclusive: 1} }},
		{name: "unknown gate decision", edit: func(f *File) { f.Gate = &GateVerdict{Decision: "great"} }, want: `gate: unknown decision "great"`},
		{name: "negative gate count", edit: func(f *File) { f.Gate = &GateVerdict{Decision: "pass", Regressions: -1} }, want: "gate: regressions = -1: a count cannot be negative"},
		{name: "more gate verdicts than metrics", edit: func(f *File) { f.Gate = &GateVerdict{Decision: "fail", Metrics: 1, Regressions: 2} },
			want: "gate: 2 regressions and 0 inconclusive in 1 metrics"},
		{name: "more empty answers than answers", edit: func(f *File) { f.Runs[0].Summary.Requests.EmptyAnswers = 3 }, want: "summary.requests.empty_answers = 3 is more than the 2 completed requests"},
		{name: "GPU over 100 %", edit: func(f *File) { f.Runs[0].GPUSeries = gpuSeriesOf(101) }, want: "gpu_series.samples[0].gpus[0].util_pct = 101: a utilisation (%) above 100"},
		{name: "GPU series from elsewhere", edit: func(f *File) { f.Runs[0].GPUSeries = &GPUSeries{Source: "rocm-smi"} }, want: `gpu_series.source "rocm-smi"`},
		{name: "GPU summary of a sane series", edit: func(f *File) {
			f.Runs[0].GPUSeries = gpuSeriesOf(50)
			f.Runs[0].Summary.GPU = SummarizeGPU(f.Runs[0].GPUSeries)
		}},
		{name: "negative GPU power", edit: func(f *File) {
			f.Runs[0].Summary.GPU = SummarizeGPU(gpuSeriesOf(50))
			*f.Runs[0].Summary.GPU.PowerMaxWatts = -1
		}, want: "summary.gpu.power_max_w = -1"},
		{name: "broken histogram", edit: func(f *File) { f.Runs[0].Samples.ITL.Growth = 0.5 }, want: "samples.itl: base 0.001 and growth 0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good()
			tt.edit(f)
			var b bytes.Buffer
			if err := f.Write(&b); err != nil {
				t.Fatal(err)
			}
			_, err := Read(&b)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Read: %v, want nil", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Read error %v, want ErrInvalidFile with %q", err, tt.want)
			}
		})
	}
}

// TestCheckNaN checks values JSON cannot carry but an importer can build.
func TestCheckNaN(t *testing.T) {
	f := &File{Runs: []Run{{Name: "a", Status: StatusOK, Summary: Summary{Throughput: Throughput{OutputTokens: math.NaN()}},
		Samples: &Samples{E2EL: []float64{math.Inf(1)}}}}}
	err := f.Check()
	for _, want := range []string{"summary.throughput.output_tokens is NaN", "samples.e2el[0] is +Inf"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check = %v, want %q", err, want)
		}
	}
}

// gpuSeriesOf is one sample of one GPU at util %, 1000 of 2000 MiB and 300 W.
func gpuSeriesOf(util float64) *GPUSeries {
	w := 300.0
	return &GPUSeries{Source: GPUSourceDCGM, Samples: []GPUSample{{T: 1, GPUs: []GPUReading{{UtilPercent: util, MemoryUsedMiB: 1000, MemoryTotalMiB: 2000, PowerWatts: &w}}}}}
}
