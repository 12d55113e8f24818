package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/results"
	"github.com/zclconf/go-cty/cty"
)

// scope says which names an expression may reference: always var.*, inside
// a scenario sweep.*, and in an assert condition the metric namespace.
type scope struct {
	vars []string
	// inScenario is true for expressions inside a scenario (or defaults);
	// sweep holds the scenario's sweep keys, nil when it has none.
	inScenario bool
	scenario   string
	sweep      []string
	// metrics is true for assert conditions.
	metrics bool
}

// roots lists the names an expression in s may start with.
func (s *scope) roots() []string {
	r := []string{"var"}
	if s.inScenario {
		r = append(r, "sweep")
	}
	if s.metrics {
		r = append(r, results.MetricRoots()...)
	}
	return r
}

// checkRefs reports every reference in expr that s does not define.
func (s *scope) checkRefs(expr hcl.Expression, context hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range expr.Variables() {
		if d := s.checkTraversal(tr); d != nil {
			d.Context = context.Ptr()
			diags = append(diags, d)
		}
	}
	return diags
}

func refError(tr hcl.Traversal, summary, format string, a ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, a...),
		Subject:  tr.SourceRange().Ptr(),
	}
}

// attrNames returns the attribute names a traversal steps through after its
// root, and false when a step is not a plain name (an index).
func attrNames(tr hcl.Traversal) ([]string, bool) {
	var names []string
	for _, step := range tr[1:] {
		switch st := step.(type) {
		case hcl.TraverseAttr:
			names = append(names, st.Name)
		case hcl.TraverseIndex:
			if n, ok := stageNumber(st.Key); ok { // stage.2.ttft.p95
				names = append(names, n)
				continue
			}
			if st.Key.Type() != cty.String || !st.Key.IsKnown() || st.Key.IsNull() {
				return names, false
			}
			names = append(names, st.Key.AsString())
		default:
			return names, false
		}
	}
	return names, true
}

func (s *scope) checkTraversal(tr hcl.Traversal) *hcl.Diagnostic {
	root := tr.RootName()
	names, plain := attrNames(tr)
	switch {
	case root == "var":
		if len(names) == 0 {
			return refError(tr, "Invalid variable reference", "Name the variable: var.<name>.")
		}
		if !contains(s.vars, names[0]) {
			return refError(tr, "Reference to undeclared variable",
				"No variable named %q is declared in this suite; declare it with a variable %q { default = ... } block.%s",
				names[0], names[0], prefixed("var.", suggest(names[0], s.vars)))
		}
		return nil
	case root == "sweep" && s.inScenario:
		if s.sweep == nil {
			return refError(tr, "Reference to undefined sweep",
				"Scenario %q has no sweep block, so %s has no value. Add sweep { %s = [...] } to the scenario.",
				s.scenario, traversalText(tr), first(names, "<key>"))
		}
		if len(names) == 0 {
			return refError(tr, "Invalid sweep reference", "Name the sweep key: sweep.<key>.")
		}
		if !contains(s.sweep, names[0]) {
			return refError(tr, "Reference to undefined sweep key",
				"The sweep of scenario %q has no key %q; its keys are %s.%s",
				s.scenario, names[0], strings.Join(s.sweep, ", "), prefixed("sweep.", suggest(names[0], s.sweep)))
		}
		return nil
	case s.metrics && contains(results.MetricRoots(), root):
		name := strings.Join(append([]string{root}, names...), ".")
		if !plain {
			return refError(tr, "Invalid metric reference", "Metrics are named with dots, like ttft.p95; %s can't be indexed.", name)
		}
		if _, ok := results.LookupMetric(name); ok {
			return nil
		}
		if root == string(results.LengthBucket) {
			return bucketRefError(tr, name, names)
		}
		if under := metricsUnder(name); len(under) > 0 {
			return refError(tr, "Incomplete metric name",
				"%s is a group of metrics; name one of them: %s.", name, strings.Join(under, ", "))
		}
		return refError(tr, "Unknown metric",
			"There is no metric named %q.%s Metric names are listed in the suite format documentation (ttft.p95, tpot.mean, throughput.output_tokens, ...).",
			name, didYouMean(name, results.MetricNames()))
	}
	where := "Expressions here may use var.<name>"
	if s.inScenario {
		where += " and sweep.<key>"
	}
	if s.metrics {
		where += ", and metrics such as ttft.p95 or throughput.output_tokens"
	}
	if hint := s.bareNameHint(tr); hint != "" {
		return refError(tr, "Unknown reference", "There is nothing named %q here. %s.%s", traversalText(tr), where, hint)
	}
	cands := s.roots()
	if s.metrics {
		cands = append(cands, results.MetricNames()...)
	}
	hint := didYouMean(traversalText(tr), cands)
	if hint == "" {
		hint = s.misspeltNameHint(tr)
	}
	return refError(tr, "Unknown reference",
		"There is nothing named %q here. %s.%s", traversalText(tr), where, hint)
}

// bareNameHint is the sweep key or variable a reference names without its
// prefix (concurrency = concurrency in a swept scenario means
// sweep.concurrency), as a suggestion, or "" when it names neither.
func (s *scope) bareNameHint(tr hcl.Traversal) string {
	root, rest := tr.RootName(), strings.TrimPrefix(traversalText(tr), tr.RootName())
	switch {
	case contains(s.sweep, root):
		return fmt.Sprintf(" %s is a key of this scenario's sweep: did you mean sweep.%s%s?", root, root, rest)
	case contains(s.vars, root):
		return fmt.Sprintf(" %s is a variable of the suite: did you mean var.%s%s?", root, root, rest)
	}
	return ""
}

// misspeltNameHint is the sweep key or variable close to a reference's
// root, as a suggestion with its prefix, or "".
func (s *scope) misspeltNameHint(tr hcl.Traversal) string {
	root, rest := tr.RootName(), strings.TrimPrefix(traversalText(tr), tr.RootName())
	if k := suggest(root, s.sweep); k != "" {
		return fmt.Sprintf(" Did you mean sweep.%s%s?", k, rest)
	}
	if v := suggest(root, s.vars); v != "" {
		return fmt.Sprintf(" Did you mean var.%s%s?", v, rest)
	}
	return ""
}

// bucketRefError explains a length_bucket.* reference that names no
// metric: too short, or a statistic that buckets do not have. Whether the
// bucket exists is checked per run (checkBucketRefs), since its names
// come from the run's workload.
func bucketRefError(tr hcl.Traversal, name string, names []string) *hcl.Diagnostic {
	if len(names) == 0 {
		return refError(tr, "Incomplete metric name",
			"%s is the group of the input-length buckets' metrics; name one as length_bucket.<bucket>.ttft.p95, with a bucket the workload declares.", name)
	}
	all := results.BucketMetricNames(names[0])
	if len(names) == 1 {
		return refError(tr, "Incomplete metric name",
			"%s is a group of metrics; name one as %s.ttft.<statistic> or %s.e2el.<statistic>, the statistic one of %s.",
			name, name, name, strings.Join(results.StatNames, ", "))
	}
	if under := prefixedBy(all, name); len(under) > 0 {
		return refError(tr, "Incomplete metric name",
			"%s is a group of metrics; name one of them: %s.", name, strings.Join(under, ", "))
	}
	return refError(tr, "Unknown metric",
		"There is no metric named %q; a length bucket has the statistics of ttft and e2el, like length_bucket.%s.ttft.p95.%s",
		name, names[0], didYouMean(name, all))
}

// metricsUnder lists the metric names that start with prefix + ".".
func metricsUnder(prefix string) []string {
	return prefixedBy(results.MetricNames(), prefix)
}

// prefixedBy lists the names that start with prefix + ".", sorted.
func prefixedBy(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix+".") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// traversalText renders a traversal as dotted source text.
func traversalText(tr hcl.Traversal) string {
	names, _ := attrNames(tr)
	return strings.Join(append([]string{tr.RootName()}, names...), ".")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func first(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

func prefixed(prefix, suggestion string) string {
	if suggestion == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %s%s?", prefix, suggestion)
}
