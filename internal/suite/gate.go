package suite

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// DefaultAlpha is the significance level a gate uses when it sets none.
const DefaultAlpha = 0.05

// gateBlock is `gate {...}`: how the suite's results compare with a baseline.
type gateBlock struct {
	Baseline           *hcl.Attribute    `hcl:"baseline,optional"`
	Alpha              *hcl.Attribute    `hcl:"alpha,optional"`
	FailOnInconclusive *hcl.Attribute    `hcl:"fail_on_inconclusive,optional"`
	AB                 *hcl.Attribute    `hcl:"ab,optional"`
	Tolerances         []*toleranceBlock `hcl:"tolerance,block"`
}

func (l *loader) decodeGate(blocks hcl.Blocks) {
	for i, b := range blocks {
		if i > 0 {
			l.duplicate(b, blocks[0], "gate")
			continue
		}
		var gb gateBlock
		l.diags = append(l.diags, decodeBody(b.Body, &gb)...)
		g := &plan.Gate{Alpha: DefaultAlpha}
		ev := l.evaluator(nil)
		g.Baseline, _ = ev.str(gb.Baseline)
		if a, ok := ev.num(gb.Alpha); ok {
			if a <= 0 || a >= 1 {
				ev.errorAt(gb.Alpha, "Invalid alpha", "alpha = %s: it is the significance level a change needs, between 0 and 1 exclusive; 0.05 is usual.", plan.FormatNumber(a))
			} else {
				g.Alpha = a
			}
		}
		g.FailOnInconclusive, _ = ev.boolean(gb.FailOnInconclusive)
		g.AB = l.abMode(gb.AB)
		seen := map[string]*toleranceBlock{}
		buckets := l.bucketNames() // the buckets the suite's runs declare
		for _, tb := range gb.Tolerances {
			if prev, dup := seen[tb.Metric]; dup {
				l.errorf(tb.DefRange.Ptr(), nil, "Duplicate tolerance block",
					"The tolerance for %q is already set at %s.", tb.Metric, prev.DefRange)
				continue
			}
			seen[tb.Metric] = tb
			m, ok := results.LookupMetric(tb.Metric)
			if !ok {
				detail := "There is no metric named %q.%s"
				if under := metricsUnder(tb.Metric); len(under) > 0 {
					l.errorf(tb.MetricRange.Ptr(), tb.DefRange.Ptr(), "Incomplete metric name",
						"%s is a group of metrics; a tolerance names one of them, such as %s.", tb.Metric, under[0])
					continue
				}
				l.errorf(tb.MetricRange.Ptr(), tb.DefRange.Ptr(), "Unknown metric", detail, tb.Metric, didYouMean(tb.Metric, results.MetricNamesWithBuckets(buckets)))
				continue
			}
			if m.Bucket != "" && !contains(buckets, m.Bucket) {
				l.errorf(tb.MetricRange.Ptr(), tb.DefRange.Ptr(), "Unknown length bucket", "%s",
					unknownBucketDetail(m.Bucket, buckets, "this suite's scenarios"))
				continue
			}
			if !m.Part.IsZero() && !l.declaresPart(m.Part) {
				l.errorf(tb.MetricRange.Ptr(), tb.DefRange.Ptr(), "Unknown "+partNoun(m.Part), "No scenario of this suite has %s %s, so the tolerance would judge nothing.", partNoun(m.Part), m.Part.Key)
				continue
			}
			if !l.required(tb.MaxRegression, "max_regression", tb.DefRange, tb.Body, "how far the metric may get worse, like max_regression = \"10%\".") {
				continue
			}
			s, ok := ev.str(tb.MaxRegression)
			if !ok {
				continue
			}
			rel, amount, err := parseTolerance(s, m.Unit)
			if err != nil {
				ev.errorAt(tb.MaxRegression, "Invalid tolerance", "max_regression = %s.", err)
				continue
			}
			if !rel && !strings.HasPrefix(strings.TrimSpace(s), "+") {
				ev.warnAt(tb.MaxRegression, "Tolerance without a sign", "%s", unsignedBand(s, m, amount))
			}
			g.Tolerances = append(g.Tolerances, plan.Tolerance{Metric: tb.Metric, Relative: rel, Amount: amount, DeclRange: sourceOf(tb.DefRange)})
		}
		l.suite.Gate = g
	}
}

// bucketNames lists the names of the input-length buckets any run of the
// suite declares, in the order first met.
func (l *loader) bucketNames() []string {
	var names []string
	for _, sc := range l.suite.Scenarios {
		for _, r := range sc.Runs {
			for _, n := range r.Load.Workload.LengthBucketNames {
				if !contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	return names
}
