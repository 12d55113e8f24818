package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// capacityLoad formats a load of a capacity search: users as the whole
// number they are ("8", not "8.00"), a rate as a metric value ("38.0/s").
func capacityLoad(v float64, vary results.Vary) string {
	if vary == results.VaryRate {
		return Value(v, results.PerSecond)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// capacityLabel names what a capacity search found: "max users under SLO"
// or "max rate under SLO".
func capacityLabel(vary results.Vary) string {
	if vary == results.VaryRate {
		return "max rate under SLO"
	}
	return "max users under SLO"
}

// capacityAnswer is the answer of c: "48", "at least 512" when the maximum
// passed, "below 4" when even the minimum failed.
func capacityAnswer(c *results.Capacity) string {
	switch {
	case c.Answer == 0:
		return "below " + capacityLoad(c.Min, c.Vary)
	case c.FailedAt == 0:
		return "at least " + capacityLoad(c.Answer, c.Vary)
	}
	return capacityLoad(c.Answer, c.Vary)
}

// SLOValues are the values a capacity SLO names, in their units:
// "var.ttft_ms = 500ms, var.tpot_ms = 50.0ms"; "" when it names none.
// The names are a results file's: made safe.
func SLOValues(c *results.Capacity) string {
	parts := make([]string, 0, len(c.Values))
	for _, name := range slices.Sorted(maps.Keys(c.Values)) {
		parts = append(parts, untrusted.Line(name)+" = "+results.FormatValue(name, c.Values[name], c.Units))
	}
	return strings.Join(parts, ", ")
}

// sloText is a capacity search's SLO with the values it names: "ttft.p95
// < var.ttft_ms, with var.ttft_ms = 500ms".
func sloText(c *results.Capacity) string {
	s := untrusted.Line(c.SLO) // the suite's source text, from a results file
	if v := SLOValues(c); v != "" {
		s += ", with " + v
	}
	return s
}

// CapacityLine reads a capacity search's result: "max users under SLO
// (ttft.p95 < var.ttft_ms, with var.ttft_ms = 500ms): 48, fails at 52; 9
// probes, 1210 requests".
func CapacityLine(c *results.Capacity) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", capacityLabel(c.Vary), sloText(c), capacityAnswer(c))
	if c.Answer > 0 && c.FailedAt > 0 {
		fmt.Fprintf(&b, ", fails at %s", capacityLoad(c.FailedAt, c.Vary))
	}
	early := 0
	for _, p := range c.Probes {
		if p.Stopped != "" {
			early++
		}
	}
	fmt.Fprintf(&b, "; %s, %s", words.Count(len(c.Probes), "probe", "probes"), words.Count(c.Requests, "request", "requests"))
	if early > 0 {
		fmt.Fprintf(&b, ", %d stopped early", early)
	}
	if c.Noisy > 0 {
		fmt.Fprintf(&b, ", %s disagreed on repeat", words.Count(c.Noisy, "load", "loads"))
	}
	return b.String()
}

// CapacityChange reads a capacity answer against the baseline's:
// "max users under SLO: 64 → 48".
func CapacityChange(base, cur *results.Capacity) string {
	if base == nil {
		return capacityLabel(cur.Vary) + ": " + capacityAnswer(cur)
	}
	return capacityLabel(cur.Vary) + ": " + capacityAnswer(base) + " → " + capacityAnswer(cur)
}

// capacityRuns returns the runs of f that are capacity searches.
func capacityRuns(f *results.File) []*results.Run {
	if f == nil {
		return nil
	}
	var out []*results.Run
	for i := range f.Runs {
		if f.Runs[i].Capacity != nil {
			out = append(out, &f.Runs[i])
		}
	}
	return out
}

// ProbeTable writes one row per probe of a capacity search: load, outcome,
// whether it stopped early, requests and TTFT/TPOT p95.
func ProbeTable(c *results.Capacity) string {
	t := &table{left: map[int]bool{}}
	head, rows := probeTable(c)
	t.add(head...)
	for _, r := range rows {
		t.add(r...)
	}
	var b strings.Builder
	_ = t.write(&b)
	return b.String()
}

// probeTable is the probe table's heads and cells, for the terminal and
// the HTML to lay out.
func probeTable(c *results.Capacity) (head []string, rows [][]string) {
	head = []string{"probe", string(c.Vary), "SLO", "stopped", "requests", "TTFT p95", "TPOT p95"}
	for i, p := range c.Probes {
		outcome := "met"
		if !p.Passed {
			outcome = "missed"
		}
		stopped := "-"
		switch p.Stopped {
		case results.ProbeCannotMeet:
			stopped = "cannot meet"
		case results.ProbeMetWithConfidence:
			stopped = "met w/ confidence"
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), capacityLoad(p.Load, c.Vary), outcome, stopped, fmt.Sprint(p.Requests),
			fmtMs(p.Summary.TTFT.P95), fmtMs(p.Summary.TPOT.P95)})
	}
	return head, rows
}

// capacityBracket is where a search put the capacity: "[8, 12)", or
// "[512, ∞)" when the search's maximum met the SLO.
func capacityBracket(b [2]float64, vary results.Vary) string {
	hi := "∞"
	if !math.IsInf(b[1], 1) {
		hi = capacityLoad(b[1], vary)
	}
	return "[" + capacityLoad(b[0], vary) + ", " + hi + ")"
}
