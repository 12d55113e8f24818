package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// Suite is a decoded, validated suite file.
type Suite struct {
	// Name and Description come from the suite block.
	Name, Description string
	// Filename is the path the suite was loaded from.
	Filename string
	// Targets holds every server, endpoint and simulator block, keyed "kind.name".
	Targets map[string]*Target
	// Scenarios are in file order.
	Scenarios []*Scenario
	// Gate is nil when the suite has no gate block.
	Gate *Gate
	// AB is the defaults block's ab setting (see Gate.AB, which wins).
	AB ABMode
	// Files holds the parsed sources, for rendering diagnostics with snippets.
	Files map[string]*hcl.File
	// Secrets are the values llmgate must never publish: everything read
	// through env(), every server env value and every api_key. Set even
	// when the suite has errors, since its diagnostics may quote them.
	Secrets []string
}

// Target is a resolved server, endpoint or simulator block: the spec a
// target starter takes, and where the block is in the source.
type Target struct {
	runspec.Target
	// DeclRange is the block's header in the source.
	DeclRange runspec.Source
}

// Scenario is a scenario block with defaults applied, before sweep expansion.
type Scenario struct {
	Name, Description string
	// Runs are the scenario's expanded runs: one, or one per sweep point.
	Runs []*Run
	// DeclRange is the block's header in the source.
	DeclRange hcl.Range
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

	// budget is what the functions of the run's asserts charge (nil
	// outside Load).
	budget *evalBudget
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

// Assert is an assert block compiled for one run: a condition over the
// metric namespace and the suite's values, which Check judges a summary
// against. The suite's values it names (var.*, sweep.*) are read when the
// suite loads; the runner evaluates no HCL.
type Assert struct {
	Name         string
	ErrorMessage string
	// Source is the condition's source text, e.g. "ttft.p95 < 500".
	Source string

	// given are the suite's values the condition names and givenUnits the
	// unit of each compared with a metric; nil when it names none.
	given      map[string]float64
	givenUnits map[string]results.Unit
	// check judges a summary (nil for an Assert not loaded from a suite).
	check func(*results.Summary) results.AssertResult
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

// Gate is the suite's gate block: how to compare with a baseline.
type Gate struct {
	// Baseline is the baseline results file, relative to the suite's directory.
	Baseline string
	// Alpha is the significance level needed to call a change; default 0.05.
	Alpha float64
	// FailOnInconclusive makes an inconclusive verdict fail the gate.
	FailOnInconclusive bool
	// AB is how an A/B gate (--ab-var) keeps server containers; "" means
	// the default (ABTogether for endpoints and simulators, which always
	// stay up, ABAlternate for server containers).
	AB         ABMode
	Tolerances []Tolerance
}

// Tolerance is how far one metric may move before the gate calls it a regression.
type Tolerance struct {
	// Metric is a name of the results metric namespace, e.g. "ttft.p95".
	Metric string
	// Relative is true for "10%" bands; Amount is then a fraction (0.10).
	// Otherwise Amount is absolute, in the metric's unit (ms for latencies).
	Relative bool
	Amount   float64
	// DeclRange is the tolerance block's header, for annotations.
	DeclRange runspec.Source
}
