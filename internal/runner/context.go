package runner

import (
	"fmt"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/trace"
	"github.com/llmgate/llmgate/runspec"
)

// contextProblem says why requests of wl cannot fit a model context of
// limit tokens (0: unknown), which source names; "" when they fit or it
// cannot be told. vLLM refuses a request whose prompt reaches the context
// or whose prompt plus max_tokens exceeds it, with a 400: a run of such
// requests measures nothing.
func contextProblem(c runspec.Load, t *trace.Trace, limit int, source string) string {
	wl := c.Workload
	if wl.Kind == runspec.WorkloadTrace && t != nil && limit > 0 {
		// a trace whose rows do not all fit still runs: those that do not
		// fail one by one, as they would have in production
		if unfit, total := load.TraceUnfit(c, t, limit); unfit == total && total > 0 {
			return fmt.Sprintf("none of the %d trace rows it replays fits the model's context of %d tokens (%s): every request would be refused; replay another part of the trace (start), or give the server a longer --max-model-len", total, limit, source)
		}
		return ""
	}
	need, known := load.ContextNeed(wl)
	if limit <= 0 || !known || need <= limit {
		return ""
	}
	what := fmt.Sprintf("input %d + output %d tokens", wl.InputTokens, wl.OutputTokens)
	switch wl.Kind {
	case runspec.WorkloadPrefix:
		what = fmt.Sprintf("prefix %d + input %d + output %d tokens", wl.PrefixTokens, wl.InputTokens, wl.OutputTokens)
	case runspec.WorkloadConversation:
		what = fmt.Sprintf("%d turns of input %d + output %d tokens", max(wl.Turns, 1), wl.InputTokens, wl.OutputTokens)
	}
	if wl.RangeRatio > 0 {
		what += fmt.Sprintf(", range_ratio %g", wl.RangeRatio)
	}
	return fmt.Sprintf("its requests need up to %d tokens (%s) but the model's context is %d tokens (%s): every request would be refused; lower input_tokens or output_tokens, or give the server a longer --max-model-len",
		need, what, limit, source)
}

// ContextProblem is a run whose requests cannot fit the context its
// target's model is known to have before it starts.
type ContextProblem struct {
	// Run and Scenario name the run.
	Run, Scenario string
	// Message says what does not fit, by how much and how to fix it.
	Message string
}

// ContextProblems checks every run of p whose target's context is known
// before it starts (backend.KnownContext: a simulator's profile, a
// --max-model-len in the args): a suite whose default workload (1024 in,
// 128 out) meets the tiny profile's 1024 tokens is refused at validate,
// not with a 400 on every request.
func ContextProblems(p *plan.Plan) []ContextProblem {
	var out []ContextProblem
	for _, g := range p.Groups {
		if g.Target == nil {
			continue
		}
		spec := g.Target.Target
		spec.Args = append(append([]string(nil), spec.Args...), g.ServerArgs...)
		limit, source := backend.KnownContext(spec)
		if limit <= 0 {
			continue
		}
		for _, r := range g.Runs {
			if msg := contextProblem(r.Load, r.Trace, limit, source); msg != "" {
				out = append(out, ContextProblem{Run: r.Name, Scenario: r.Scenario, Message: msg})
			}
		}
	}
	return out
}
