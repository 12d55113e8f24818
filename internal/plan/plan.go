package plan

import (
	"strconv"

	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

// Suite is what the runner takes of a loaded suite: its name and file, its
// runs, its gate and its A/B mode.
type Suite struct {
	// Name and Description come from the suite block.
	Name, Description string
	// Filename is the path the suite was loaded from.
	Filename string
	// Runs are every expanded run, in file order (see Plan).
	Runs []*Run
	// Gate is nil when the suite has no gate block.
	Gate *Gate
	// AB is the defaults block's ab setting (see Gate.AB, which wins).
	AB ABMode
}

// Target is a resolved server, endpoint or simulator block: the spec a
// target starter takes, and where the block is in the source.
type Target struct {
	runspec.Target
	// DeclRange is the block's header in the source.
	DeclRange runspec.Source
}

// Param is one sweep key's value in a run, as it appears in the run's name.
type Param struct {
	Key, Text string
}

// Goodput holds the per-request limits in milliseconds that make a request
// "good"; zero means no limit on that metric.
type Goodput struct {
	TTFT, TPOT, E2EL float64
}

// Run is one expanded run: a scenario at one sweep point.
type Run struct {
	// Name is "scenario" or "scenario[key=value,...]".
	Name     string
	Scenario string
	// Params are the sweep values in key order of the sweep block.
	Params []Param
	// Target is the target the run sends traffic to.
	Target *Target
	// ServerArgs are appended to the target's args; runs with different
	// ServerArgs need different servers.
	ServerArgs []string
	// Load is the run's load; the runner adds where to send it.
	Load runspec.Load
	// Trace is the trace a trace workload replays, read when the suite
	// was loaded (Load.Workload says which part of it and how fast); nil
	// for other workloads.
	Trace *trace.Trace
	// Goodput holds the goodput limits.
	Goodput Goodput
	// Asserts are evaluated after the run.
	Asserts []*Assert
	// Capacity, when set, makes the run a capacity search: probes at
	// several loads (see ProbeRun), answered by the largest load that
	// meets Capacity.SLO.
	Capacity *Capacity
	// ResetBudget, when set, gives the run's asserts their whole
	// evaluation budget again: EvalAsserts calls it once before judging
	// them, so the asserts of one evaluation share one budget. The suite
	// that compiled the asserts sets it.
	ResetBudget func()
}

// ParamMap returns the run's sweep values as text, by key.
func (r *Run) ParamMap() map[string]string {
	if len(r.Params) == 0 {
		return nil
	}
	m := make(map[string]string, len(r.Params))
	for _, p := range r.Params {
		m[p.Key] = p.Text
	}
	return m
}

// Group is a run of consecutive Runs that share one server: same target and
// same server args. The runner starts the server once per group.
type Group struct {
	Target     *Target
	ServerArgs []string
	Runs       []*Run
}

// Plan is the ordered list of server groups a suite expands to.
type Plan struct {
	Groups []*Group
}

// Runs returns every run of the plan in execution order.
func (p *Plan) Runs() []*Run {
	var runs []*Run
	for _, g := range p.Groups {
		runs = append(runs, g.Runs...)
	}
	return runs
}

// FormatNumber writes f as a suite would: the fewest digits that read back
// as f, without an exponent (0.5, 16).
func FormatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
