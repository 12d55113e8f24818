package report

import (
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// evidenceValue formats one value of a hint's evidence in its unit: a
// metric's, or the one the hint gives it ("16" users).
func evidenceValue(e diagnose.Evidence) string {
	return results.FormatValue(e.Name, e.Value, map[string]results.Unit{e.Name: e.Unit})
}

// HintLine reads one hint: "run: what (name = value, ...); next: step".
func HintLine(h diagnose.Hint) string {
	ev := make([]string, len(h.Evidence))
	for i, e := range h.Evidence {
		ev[i] = e.Name + " = " + evidenceValue(e)
	}
	return fmt.Sprintf("%s: %s (%s); next: %s", h.Run, h.What, strings.Join(ev, ", "), h.Next)
}

// HintLink links a regression to a hint's evidence that moved since the
// baseline: "ttft.p99 regressed; server.preemptions 0 → 19,
// server.kv_cache_usage.max 0.710 → 0.999". "" when nothing moved.
func HintLink(regressed []string, changes []diagnose.Change) string {
	if len(regressed) == 0 || len(changes) == 0 {
		return ""
	}
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.Name + " " + results.FormatValue(c.Name, c.Base, nil) + " → " + results.FormatValue(c.Name, c.Cur, nil)
	}
	verb := "regressed"
	return strings.Join(regressed, ", ") + " " + verb + "; " + strings.Join(parts, ", ")
}

// writeHints writes f's diagnosis hints under the run table, or nothing
// when none fired.
func writeHints(b *strings.Builder, f *results.File) {
	hints := diagnose.File(f)
	if len(hints) == 0 {
		return
	}
	b.WriteString("\nDiagnosis hints:\n")
	for _, h := range hints {
		b.WriteString("- " + HintLine(h) + "\n")
	}
}

// mdHints writes the hints of c's current file (and of its runs against
// the baseline's) in a collapsed section, each linked to the regressions of its run where its evidence moved.
func mdHints(m *mdBuilder, c *compare.Comparison) {
	hints := diagnose.FileAgainst(c.Current, c.Baseline)
	if len(hints) == 0 {
		return
	}
	regressed := map[string][]string{}
	for i := range c.Rows {
		if r := &c.Rows[i]; r.Verdict == compare.Regression {
			regressed[r.Run] = append(regressed[r.Run], r.Metric.Name)
		}
	}
	base := map[string]*results.Run{}
	if c.Baseline != nil {
		for i := range c.Baseline.Runs {
			base[c.Baseline.Runs[i].Name] = &c.Baseline.Runs[i]
		}
	}
	opened := m.block("<details><summary>"+words.Count(len(hints), "diagnosis hint", "diagnosis hints")+"</summary>", "")
	for _, h := range hints {
		line := "- " + untrusted.Markdown(HintLine(h)) // quotes run names and sweep values
		if link := HintLink(regressed[h.Run], diagnose.Changes(h, base[h.Run])); link != "" {
			line += " — **" + untrusted.Markdown(link) + "**"
		}
		m.line(line)
	}
	m.line("")
	if opened {
		m.close("</details>")
		m.line("")
	}
}

// KneeLine reads a sweep's knee: "users: knee at concurrency=24 (8466/s
// output tokens, TTFT p95 40.6ms); highest throughput with asserts
// holding: concurrency=16 (6672/s output tokens)".
func KneeLine(k diagnose.Knee) string {
	var parts []string
	if k.At != nil {
		parts = append(parts, fmt.Sprintf("knee at %s=%s (%s output tokens, TTFT p95 %s)", k.Key, k.At.Params[k.Key],
			Value(k.At.Summary.Throughput.OutputTokens, results.PerSecond), Value(k.At.Summary.TTFT.P95, results.Milliseconds)))
	}
	if k.BestPassing != nil {
		parts = append(parts, fmt.Sprintf("highest throughput with asserts holding: %s=%s (%s output tokens)", k.Key, k.BestPassing.Params[k.Key],
			Value(k.BestPassing.Summary.Throughput.OutputTokens, results.PerSecond)))
	}
	return k.Scenario + ": " + strings.Join(parts, "; ")
}

// writeKnees writes the knee of each sweep of f under the run table.
func writeKnees(b *strings.Builder, f *results.File) {
	knees := diagnose.Knees(f)
	if len(knees) == 0 {
		return
	}
	b.WriteString("\nSweeps:\n")
	for _, k := range knees {
		b.WriteString("- " + KneeLine(k) + "\n")
	}
}

// mdKnees lists the knee of each sweep of f.
func mdKnees(m *mdBuilder, f *results.File) {
	knees := diagnose.Knees(f)
	if len(knees) == 0 {
		return
	}
	m.line("**Sweeps**")
	m.line("")
	for _, k := range knees {
		m.line("- " + untrusted.Markdown(KneeLine(k)))
	}
	m.line("")
}
