package results

import (
	"fmt"
	"strconv"
	"strings"
)

// Seconds is the unit of start-up times.
const Seconds Unit = "s"

// Startup is how long a server target took to come up: from its container's
// creation to its readiness (GET /health answered 200, the model listed),
// which covers loading the weights, compiling and capturing CUDA graphs
// but not pulling the image. Every run on that server start carries it,
// so each A/B side and each restart has its own.
type Startup struct {
	// Seconds is created to ready.
	Seconds float64 `json:"seconds"`
	// Phases are the durations the server's log reported for its phases
	// (vLLM's "Model loading took ...", "torch.compile takes ...", "Graph
	// capturing finished in ..."), in the log's order; none when it
	// printed none.
	Phases []StartupPhase `json:"phases,omitempty"`
}

// StartupPhase is one phase of a start-up, as the server's log timed it.
type StartupPhase struct {
	// Name is one of the Phase* names.
	Name string `json:"name"`
	// Seconds is how long the phase took, by the log.
	Seconds float64 `json:"seconds"`
}

// The phases of a vLLM start-up that its log times.
const (
	PhaseWeights = "weights"     // "Model loading took X GiB and Y seconds"
	PhaseCompile = "compile"     // "torch.compile takes X s in total"
	PhaseGraphs  = "cuda_graphs" // "Graph capturing finished in X secs"
	maxPhases    = 16            // the most phases a results file may list
	maxLogLine   = 4096          // longer log lines are not read for phases
)

// phaseUnit bounds a phase's seconds.
var phaseUnit = Limit{MaxDurationS, "a start-up phase (s)"}

// phaseLines are the log messages each phase is read from: the text before
// the number and the word after it.
var phaseLines = []struct{ name, before, after string }{
	{PhaseWeights, "Model loading took ", " seconds"},
	{PhaseCompile, "torch.compile takes ", " s in total"},
	{PhaseGraphs, "Graph capturing finished in ", " sec"},
}

// ParseStartupPhases reads the phases a vLLM log timed. The log is the
// container's (untrusted): lines over maxLogLine bytes, numbers that are
// not finite or not within LimitDuration, and phases past maxPhases are
// skipped. "Model loading took 15.2 GiB and 21.5 seconds" gives 21.5 s.
func ParseStartupPhases(log string) []StartupPhase {
	var out []StartupPhase
	for line := range strings.Lines(log) {
		if len(line) > maxLogLine || len(out) == maxPhases {
			continue
		}
		for _, p := range phaseLines {
			i := strings.Index(line, p.before)
			if i < 0 {
				continue
			}
			rest := line[i+len(p.before):]
			j := strings.Index(rest, p.after)
			if j < 0 {
				continue
			}
			num := rest[:j]
			if k := strings.LastIndexByte(num, ' '); k >= 0 {
				num = num[k+1:] // "15.2 GiB and 21.5": the last number
			}
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || phaseUnit.Problem(v) != "" {
				continue
			}
			out = append(out, StartupPhase{Name: p.name, Seconds: v})
		}
	}
	return out
}

// Phase returns the seconds of the named phase (summed when the log timed
// it more than once, as each engine core does), and false when it has none.
func (s *Startup) Phase(name string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	var v float64
	ok := false
	for _, p := range s.Phases {
		if p.Name == name {
			v, ok = v+p.Seconds, true
		}
	}
	return v, ok
}

// check validates a results file's start-up figures.
func (c *checker) startup(s *Startup) {
	if s == nil {
		return
	}
	c.value("summary.startup.seconds", s.Seconds, LimitDuration)
	if len(s.Phases) > maxPhases {
		c.fail(fmt.Sprintf("summary.startup lists %d phases, more than %d", len(s.Phases), maxPhases))
		return
	}
	for i, p := range s.Phases {
		switch p.Name {
		case PhaseWeights, PhaseCompile, PhaseGraphs:
		default:
			c.fail(fmt.Sprintf("summary.startup.phases[%d].name is not %q, %q or %q", i, PhaseWeights, PhaseCompile, PhaseGraphs))
		}
		c.value(fmt.Sprintf("summary.startup.phases[%d].seconds", i), p.Seconds, phaseUnit)
	}
}
