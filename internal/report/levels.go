package report

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// ShortfallLine reads how a run fell short of its level. Below the share
// of its users the self-check asks of a longer run
// (runspec.MinInFlightRatio), it never reached them:
// "moe[concurrency=32]: never reached its 32 users: 20.3 in flight on
// average over 52 measured requests, at most 2 × the concurrency; send more
// than 64 to reach and check it". Otherwise it was not checked: "batch: its
// 4 users not checked: 8 measured requests, at most 2 × the concurrency
// (3.91 in flight on average); send more than 8 to check it". The run's
// name is a results file's: made one safe line.
func ShortfallLine(r *results.Run, s *results.Shortfall) string {
	name, most := untrusted.Line(r.Name), results.LevelRequestsPerUser*s.Concurrency
	requests := words.Count(s.Measured, "measured request", "measured requests")
	if s.MeanInFlight > 0 && s.MeanInFlight < runspec.MinInFlightRatio*float64(s.Concurrency) {
		return fmt.Sprintf("%s: never reached its %d users: %s in flight on average over %s, at most %d × the concurrency; send more than %d to reach and check it",
			name, s.Concurrency, fmtNum(s.MeanInFlight), requests, results.LevelRequestsPerUser, most)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: its %d users not checked: %s, at most %d × the concurrency", name, s.Concurrency, requests, results.LevelRequestsPerUser)
	if s.MeanInFlight > 0 {
		fmt.Fprintf(&b, " (%s in flight on average)", fmtNum(s.MeanInFlight))
	}
	fmt.Fprintf(&b, "; send more than %d to check it", most)
	return b.String()
}

// shortfalls are the lines of f's runs that fell short of their level.
func shortfalls(f *results.File) []string {
	if f == nil {
		return nil
	}
	var out []string
	for i := range f.Runs {
		r := &f.Runs[i]
		if s := r.Shortfall(); s != nil {
			out = append(out, ShortfallLine(r, s))
		}
	}
	return out
}

// shortfallsTitle heads the list of runs that fell short of their level.
const shortfallsTitle = "Runs not shown at the load they are named after"

// writeShortfalls writes the runs that fell short of their level under
// the run table.
func writeShortfalls(b *strings.Builder, f *results.File) {
	lines := shortfalls(f)
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n" + shortfallsTitle + ":\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
}

// mdShortfalls lists them in the markdown.
func mdShortfalls(m *mdBuilder, f *results.File) {
	lines := shortfalls(f)
	if len(lines) == 0 {
		return
	}
	out := []string{"⚠️ **" + shortfallsTitle + "**", ""}
	for _, l := range lines {
		out = append(out, "- "+untrusted.Markdown(l))
	}
	m.block(append(out, "")...)
}
