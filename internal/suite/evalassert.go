package suite

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
	"github.com/zclconf/go-cty/cty"
)

// compileAssert makes a's Judge from cond, its condition, for one run: ctx is the
// run's evaluation context (var.*, sweep.*, functions), buckets its
// length buckets and parts its mix members and stages. What the condition names of the suite's values is read
// now, once; the check sets the summary's metrics beside them. The check
// reads a's Name, Source and ErrorMessage when it runs.
func compileAssert(a *plan.Assert, cond hcl.Expression, ctx *hcl.EvalContext, buckets []string, parts ...results.PartRef) {
	rng := cond.Range()
	where := fmt.Sprintf("%s:%d", filepath.Base(rng.Filename), rng.Start.Line)
	units := comparedUnits(cond)
	var given map[string]float64
	var metrics []string // the metric names cond reads, in order
	for _, tr := range cond.Variables() {
		name := traversalText(tr)
		if root := tr.RootName(); root == "var" || root == "sweep" {
			if f, ok := numberAt(tr, ctx); ok {
				if given == nil {
					given = map[string]float64{}
				}
				given[name] = f
			}
			continue
		}
		metrics = append(metrics, name)
	}
	a.Given, a.GivenUnits = given, unitsOf(units, given)
	a.Judge = func(sum *results.Summary) results.AssertResult {
		vals := map[string]float64{}
		if sum != nil {
			vals = sum.Values()
		}
		res := results.AssertResult{
			Name:      a.Name,
			Condition: untrusted.String(a.Source),
			File:      rng.Filename,
			Line:      rng.Start.Line,
			Column:    rng.Start.Column,
		}
		if res.Condition == "" {
			res.Condition = untrusted.String(fmt.Sprintf("assert %q", a.Name))
		}
		// Record what the expression sees, and catch metrics this run lacks.
		for name, f := range given {
			addValue(&res, name, f)
		}
		var missing []string
		for _, name := range metrics {
			if v, ok := vals[name]; ok {
				addValue(&res, name, v)
			} else if !contains(missing, name) {
				missing = append(missing, name)
			}
		}
		res.Units = unitsOf(units, res.Values)
		mctx := ctx.NewChild()
		mctx.Variables = metricObjects(vals, buckets, parts...)
		v, diags := cond.Value(mctx)
		switch {
		case diags.HasErrors():
			res.Message = untrusted.String(fmt.Sprintf("%s: %s: could not be evaluated: %s", where, res.Condition.Raw(), diagText(diags)))
			return res
		case !v.IsKnown() && len(missing) > 0:
			res.Message = untrusted.String(fmt.Sprintf("%s: %s: %s %s not measured in this run (%s)",
				where, res.Condition.Raw(), strings.Join(missing, ", "), isAre(len(missing)), whyMissing(missing, sum)))
			return res
		case v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.Bool):
			res.Message = untrusted.String(fmt.Sprintf("%s: %s: is not true or false", where, res.Condition.Raw()))
			return res
		}
		v, _ = v.Unmark()
		res.Passed = v.True()
		if !res.Passed {
			msg := a.ErrorMessage
			if msg == "" {
				msg = fmt.Sprintf("assert %q failed", a.Name)
			}
			res.Message = untrusted.String(fmt.Sprintf("%s (%s: %s, with %s)", msg, where, res.Condition.Raw(), valuesText(res.Values, res.Units)))
		}
		return res
	}
}

// numberAt is the number tr names in ctx, false when it names none.
func numberAt(tr hcl.Traversal, ctx *hcl.EvalContext) (float64, bool) {
	v, err := tr.TraverseAbs(ctx)
	if err != nil || !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return 0, false
	}
	f, _ := v.AsBigFloat().Float64()
	return f, true
}

// unitsOf keeps the units of the names vals has; nil when none.
func unitsOf(units map[string]results.Unit, vals map[string]float64) map[string]results.Unit {
	var out map[string]results.Unit
	for n, u := range units {
		if _, ok := vals[n]; ok {
			if out == nil {
				out = map[string]results.Unit{}
			}
			out[n] = u
		}
	}
	return out
}

func addValue(res *results.AssertResult, name string, v float64) {
	if res.Values == nil {
		res.Values = map[string]float64{}
	}
	res.Values[name] = v
}

// valuesText renders seen values in their units as "ttft.p95 = 612ms,
// sweep.concurrency = 16, var.ttft_ms = 500ms" (results.FormatValue).
func valuesText(vals map[string]float64, units map[string]results.Unit) string {
	if len(vals) == 0 {
		return "no metric values"
	}
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " = " + results.FormatValue(n, vals[n], units)
	}
	return strings.Join(parts, ", ")
}

func isAre(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// whyMissing says why each of the metrics names is missing from sum, each
// reason once.
func whyMissing(names []string, sum *results.Summary) string {
	var why []string
	for _, n := range names {
		reason := "the run produced no value for it"
		if m, ok := results.LookupMetric(n); ok {
			if w := m.WhyNotMeasured(sum); w != "" {
				reason = w
			}
		}
		why = appendOnce(why, reason)
	}
	return strings.Join(why, "; ")
}

func appendOnce(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func diagText(diags hcl.Diagnostics) string {
	var parts []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		parts = append(parts, strings.TrimSuffix(d.Summary+": "+d.Detail, "."))
	}
	return strings.Join(parts, "; ")
}

// isBucketMetric reports whether name is a metric of an input-length bucket.
func isBucketMetric(name string) bool {
	m, ok := results.LookupMetric(name)
	return ok && m.Family == results.LengthBucket
}
