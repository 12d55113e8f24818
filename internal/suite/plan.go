package suite

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
)

// Suite is a decoded, validated suite file.
type Suite struct {
	// Name and Description come from the suite block.
	Name, Description string
	// Filename is the path the suite was loaded from.
	Filename string
	// Targets holds every server, endpoint and simulator block, keyed "kind.name".
	Targets map[string]*plan.Target
	// Scenarios are in file order.
	Scenarios []*Scenario
	// Gate is nil when the suite has no gate block.
	Gate *plan.Gate
	// AB is the defaults block's ab setting (see Gate.AB, which wins).
	AB plan.ABMode
	// Files holds the parsed sources, for rendering diagnostics with snippets.
	Files map[string]*hcl.File
	// Secrets are the values llmgate must never publish: everything read
	// through env(), every server env value and every api_key. Set even
	// when the suite has errors, since its diagnostics may quote them.
	Secrets []string
}

// Scenario is a scenario block with defaults applied, before sweep expansion.
type Scenario struct {
	Name, Description string
	// Runs are the scenario's expanded runs: one, or one per sweep point.
	Runs []*plan.Run
	// DeclRange is the block's header in the source.
	DeclRange hcl.Range
}

// Runnable is what the runner takes of s: its name and file, its runs in
// file order (with their asserts, compiled when s was loaded), its gate and
// its A/B mode, sharing s's runs and gate; nil for a nil suite. It is plain
// data: what running it needs of HCL (each assert's and capacity SLO's
// condition, judged against the metrics a run measures) is in the Judge
// functions the loader made, so the runner links no HCL.
func (s *Suite) Runnable() *plan.Suite {
	if s == nil {
		return nil
	}
	p := &plan.Suite{Name: s.Name, Description: s.Description, Filename: s.Filename, Gate: s.Gate, AB: s.AB}
	for _, sc := range s.Scenarios {
		p.Runs = append(p.Runs, sc.Runs...)
	}
	return p
}

// Plan returns the suite's runs grouped by server (see plan.Suite.Plan).
func (s *Suite) Plan() *plan.Plan { return s.Runnable().Plan() }
