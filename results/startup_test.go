package results

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStartupPhases(t *testing.T) {
	log := `INFO 10-06 12:00:01 [default_loader.py:267] Loading weights took 20.10 seconds
(EngineCore_DP0 pid=212) INFO 10-06 12:00:02 [gpu_model_runner.py:2653] Model loading took 15.2690 GiB and 21.512345 seconds
(EngineCore_DP0 pid=212) INFO 10-06 12:00:30 [monitor.py:34] torch.compile takes 27.31 s in total
(EngineCore_DP0 pid=212) INFO 10-06 12:00:40 [gpu_model_runner.py:3480] Graph capturing finished in 8 secs, took 0.31 GiB
INFO 10-06 12:00:41 Model loading took 1 GiB and NaN seconds
INFO 10-06 12:00:41 torch.compile takes -3 s in total
INFO:     Application startup complete.
`
	got := ParseStartupPhases(log)
	want := []StartupPhase{{PhaseWeights, 21.512345}, {PhaseCompile, 27.31}, {PhaseGraphs, 8}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if got := ParseStartupPhases("no phases here\n"); got != nil {
		t.Errorf("phases %+v from a log without any", got)
	}
}

func TestStartupMetrics(t *testing.T) {
	s := &Summary{Startup: &Startup{Seconds: 42.5, Phases: []StartupPhase{{PhaseWeights, 20}, {PhaseGraphs, 3}, {PhaseGraphs, 4}}}}
	for name, want := range map[string]float64{"startup.seconds": 42.5, "startup.weights_seconds": 20, "startup.cuda_graphs_seconds": 7} {
		m, ok := LookupMetric(name)
		if !ok || m.Better != LowerIsBetter || m.Unit != Seconds || m.Family != "startup" {
			t.Fatalf("%s: %+v, %v", name, m, ok)
		}
		if v, ok := m.Value(s); !ok || v != want {
			t.Errorf("%s = %g, %v; want %g", name, v, ok, want)
		}
	}
	m, _ := LookupMetric("startup.compile_seconds")
	if _, ok := m.Value(s); ok {
		t.Error("startup.compile_seconds without a compile phase")
	}
	m, _ = LookupMetric("startup.seconds")
	if _, ok := m.Value(&Summary{}); ok {
		t.Error("startup.seconds for a target llmgate did not start")
	}
	if got := Seconds.Format(42.5); got != "42.5 s" {
		t.Errorf("Seconds.Format = %q", got)
	}
	c := &checker{}
	c.startup(&Startup{Seconds: math.NaN(), Phases: []StartupPhase{{"other", 1}}})
	if len(c.errs) != 2 {
		t.Errorf("check found %v, want the NaN and the unknown phase", c.errs)
	}
}
