package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// loadFacet is one part of a run's recorded load (results.LoadConfig) that
// decides what the run measured: two runs that differ in any facet put
// other work on the server, so their numbers are not comparable.
type loadFacet struct {
	// name says what the facet is, as the message shows it.
	name string
	// text is the facet's value as the message shows it; two runs differ
	// in the facet when their texts differ (numbers are written exactly).
	text func(*results.LoadConfig) string
}

// loadFacets are the facets that make a run's load and workload. The
// warmup, a closed loop's ramp-up and the seed are not among them: they
// change which requests come first or which prompts of the same lengths
// are drawn, not the load measured, and the length buckets' names only
// name metrics (a renamed bucket's metrics are new and missing, which
// Compare says).
var loadFacets = []loadFacet{
	{"concurrency", func(l *results.LoadConfig) string { return orNone(intText(l.Concurrency)) }},
	{"rate", func(l *results.LoadConfig) string { return orNone(numberText(l.Rate, " req/s")) }},
	{"burstiness", func(l *results.LoadConfig) string { return orNone(numberText(l.Burstiness, "")) }},
	{"ramp", func(l *results.LoadConfig) string {
		if l.Ramp == "" {
			return "none"
		}
		return fmt.Sprintf("%s from %s req/s over %s s", l.Ramp, exact(l.RampFrom), exact(l.RampOverS))
	}},
	{"requests", func(l *results.LoadConfig) string { return orNone(intText(l.Requests)) }},
	{"duration", func(l *results.LoadConfig) string { return orNone(numberText(l.DurationS, " s")) }},
	{"workload", func(l *results.LoadConfig) string { return orNone(l.Workload) }},
	{"input tokens", func(l *results.LoadConfig) string { return orNone(intText(l.InputTokens)) }},
	{"output tokens", func(l *results.LoadConfig) string { return orNone(intText(l.OutputTokens)) }},
	{"range ratio", func(l *results.LoadConfig) string { return orNone(numberText(l.RangeRatio, "")) }},
	{"prefix tokens", func(l *results.LoadConfig) string { return orNone(intText(l.PrefixTokens)) }},
	{"prefix groups", func(l *results.LoadConfig) string { return orNone(intText(l.PrefixGroups)) }},
	{"turns", func(l *results.LoadConfig) string { return orNone(intText(l.Turns)) }},
	{"think time", func(l *results.LoadConfig) string { return orNone(numberText(l.ThinkTimeS, " s")) }},
	{"length buckets", func(l *results.LoadConfig) string {
		// Quantile buckets' edges are drawn from the run's requested
		// lengths, and the plan has none yet: the count decides.
		if l.LengthQuantiles > 0 {
			return fmt.Sprintf("%d quantiles", l.LengthQuantiles)
		}
		if len(l.LengthBuckets) == 0 {
			return "none"
		}
		edges := make([]string, len(l.LengthBuckets))
		for i, e := range l.LengthBuckets {
			edges[i] = strconv.Itoa(e)
		}
		return "edges " + strings.Join(edges, ",")
	}},
	{"endpoint", func(l *results.LoadConfig) string {
		switch {
		case l.Chat:
			return "chat completions"
		case l.TextPrompts:
			return "completions with text prompts"
		}
		return "completions"
	}},
	{"mix", mixText},
	{"stages", stagesText},
	{"dataset filter", func(l *results.LoadConfig) string { return orNone(l.DatasetFilter) }},
	{"request extra_body", func(l *results.LoadConfig) string {
		if l.Request == nil {
			return "none"
		}
		return orNone(l.Request.ExtraBody)
	}},
	{"request headers", func(l *results.LoadConfig) string {
		if l.Request == nil || len(l.Request.Headers) == 0 {
			return "none"
		}
		hs := make([]string, len(l.Request.Headers))
		for i, h := range l.Request.Headers {
			hs[i] = h.Name + ": " + h.Value
		}
		return strings.Join(hs, ", ")
	}},
}

// loadDiff says how two runs' recorded loads differ, one clause a facet,
// each naming both sides; nil when they do not, or when either run does
// not record its load (files from before it was, imported runs, capacity
// searches, whose load varies).
func loadDiff(base, cur *results.LoadConfig) []string {
	if base == nil || cur == nil {
		return nil
	}
	var d []string
	for _, f := range loadFacets {
		if b, c := f.text(base), f.text(cur); b != c {
			d = append(d, fmt.Sprintf("%s %s in the baseline, %s now", f.name, b, c))
		}
	}
	return d
}

func intText(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// numberText is v exactly, with its unit; "" for 0.
func numberText(v float64, unit string) string {
	if v == 0 {
		return ""
	}
	return exact(v) + unit
}

// exact writes v as the shortest text that reads back as v.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
