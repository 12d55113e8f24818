package suite

import (
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
)

// maxLengthBuckets caps the edges of length_buckets: each bucket is a row
// of the report and needs requests of its own to mean anything.
const maxLengthBuckets = 16

// lengthBuckets evaluates `length_buckets = [512, 2048]`: the input
// lengths, in tokens, that split a run's requests into buckets (here below
// 512, 512 up to 2048, and 2048 and more). The edges are whole numbers of
// at least 1, strictly increasing.
func (e *evaluator) lengthBuckets(attr *hcl.Attribute) ([]int, bool) {
	v, ok := e.value(attr)
	if !ok {
		return nil, false
	}
	const form = "length_buckets must be a list of input lengths in tokens, in increasing order, like [512, 2048]."
	if !v.Type().IsListType() && !v.Type().IsTupleType() {
		e.errorAt(attr, "Incorrect attribute value type", "%s", form)
		return nil, false
	}
	var edges []int
	for it := v.ElementIterator(); it.Next(); {
		_, el := it.Element()
		if el.IsNull() || el.Type() != cty.Number {
			e.errorAt(attr, "Incorrect attribute value type", "%s", form)
			return nil, false
		}
		f, _ := el.AsBigFloat().Float64()
		switch {
		case f != math.Trunc(f) || f < 1 || f > AbsurdTokens:
			e.errorAt(attr, "Invalid length bucket", "length_buckets edge %s must be a whole number of tokens from 1 to %d.", plan.FormatNumber(f), AbsurdTokens)
			return nil, false
		case len(edges) > 0 && int(f) <= edges[len(edges)-1]:
			e.errorAt(attr, "Invalid length bucket", "length_buckets edges must increase: %d follows %d. %s", int(f), edges[len(edges)-1], form)
			return nil, false
		}
		edges = append(edges, int(f))
	}
	switch {
	case len(edges) == 0:
		e.errorAt(attr, "Invalid length bucket", "length_buckets is empty; %s", form)
		return nil, false
	case len(edges) > maxLengthBuckets:
		e.errorAt(attr, "Too many length buckets", "length_buckets has %d edges; at most %d, so that each bucket keeps enough requests to compare.", len(edges), maxLengthBuckets)
		return nil, false
	}
	return edges, true
}

// fillBuckets evaluates the workload's input-length buckets into w: edges
// (length_buckets) or a number of quantile buckets (length_quantiles), and
// their names (length_bucket_names, else results' defaults), which asserts
// and tolerances use as length_bucket.<name>.ttft.p95.
func (b *workloadBlock) fillBuckets(ev *evaluator, w *runspec.Workload) {
	if b.LengthBucket != nil && b.LengthQuant != nil {
		ev.errorAt(b.LengthQuant, "Two kinds of length buckets",
			"length_buckets declares the edges and length_quantiles asks for edges drawn from the prompts; set one of them.")
		return
	}
	n := 0
	if edges, ok := ev.lengthBuckets(b.LengthBucket); ok {
		w.LengthBuckets = edges
		w.LengthBucketNames = results.DefaultBucketNames(edges)
		n = len(edges) + 1
	}
	if q, ok := ev.int(b.LengthQuant); ok {
		switch {
		case q < 2 || q > maxLengthBuckets+1:
			ev.errorAt(b.LengthQuant, "Invalid length quantiles",
				"length_quantiles = %d: it is the number of buckets of about equal counts, from 2 (shorter and longer half) to %d.", q, maxLengthBuckets+1)
		case !slices.Contains([]runspec.WorkloadKind{runspec.WorkloadRandom, runspec.WorkloadPrefix, runspec.WorkloadStructured}, w.Kind):
			ev.errorAt(b.LengthQuant, "Length quantiles of this workload",
				"length_quantiles draws its edges from the lengths the prompts ask for, which a %s workload does not know before the run; declare length_buckets edges instead.", w.Kind)
		default:
			w.LengthQuantiles = q
			w.LengthBucketNames = results.QuantileBucketNames(q)
			n = q
		}
	}
	if b.BucketNames == nil {
		return
	}
	names, ok := ev.strList(b.BucketNames)
	if !ok {
		return
	}
	if n == 0 {
		ev.errorAt(b.BucketNames, "Names without length buckets",
			"length_bucket_names names the buckets of length_buckets or length_quantiles, and this workload declares neither.")
		return
	}
	if len(names) != n {
		ev.errorAt(b.BucketNames, "Wrong number of bucket names",
			"length_bucket_names has %d names for %d buckets (%s); give one name a bucket, shortest inputs first.", len(names), n, strings.Join(w.LengthBucketNames, ", "))
		return
	}
	for i, name := range names {
		if !results.ValidBucketName(name) {
			ev.errorAt(b.BucketNames, "Invalid bucket name",
				"length_bucket_names: %q can't name a bucket in length_bucket.<name>.ttft.p95; use a letter, then letters, digits or _, at most 32 characters.", name)
			return
		}
		if j := slices.Index(names[:i], name); j >= 0 {
			ev.errorAt(b.BucketNames, "Duplicate bucket name", "length_bucket_names: %q names buckets %d and %d.", name, j+1, i+1)
			return
		}
	}
	w.LengthBucketNames = names
}
