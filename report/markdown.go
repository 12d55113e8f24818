package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/compare"
	"github.com/llmgate/llmgate/results"
)

// MaxMarkdown is GitHub's limit on a step summary or comment body, less a margin.
const MaxMarkdown = 65000

// MarkdownOptions tune Markdown.
type MarkdownOptions struct {
	// Title is the heading; "llmgate" when empty.
	Title string
	// MaxLen bounds the output in bytes; 0 means MaxMarkdown.
	MaxLen int
	// ReportURL, when set, is linked as the full report.
	ReportURL string
}

// Markdown renders c for a GitHub step summary or PR comment: the verdict
// line first, a table of what changed, failed asserts, the environment when
// it differs, mermaid charts of sweeps, and everything else in a collapsed
// section. It stays within opts.MaxLen bytes, dropping rows with a note.
func Markdown(c *compare.Comparison, opts MarkdownOptions) string {
	limit := opts.MaxLen
	if limit <= 0 {
		limit = MaxMarkdown
	}
	title := opts.Title
	if title == "" {
		title = "llmgate"
	}
	alpha := alphaOf(c)
	m := &mdBuilder{limit: limit - 400} // room for the closing tags and the truncation note
	m.line("### " + title + ": " + Headline(c))
	m.line("")
	if opts.ReportURL != "" {
		m.line("[Full report](" + opts.ReportURL + ")")
		m.line("")
	}

	var changed []*compare.Row
	for i := range c.Rows {
		if r := &c.Rows[i]; r.Verdict != compare.Unchanged {
			changed = append(changed, r)
		}
	}
	if len(changed) > 0 {
		m.line("| run | metric | baseline | current | change | band | verdict |")
		m.line("|---|---|---:|---:|---:|---:|---|")
		for _, r := range changed {
			if !m.line(mdRow(r, alpha)) {
				break
			}
		}
		m.line("")
	}
	if runs := c.RerunRuns(); len(runs) > 0 {
		m.line("🔁 Rerun to confirm: " + mdCode(strings.Join(runs, ", ")) + " — a single run is within run-to-run drift of the band.")
		m.line("")
	}
	if len(c.FailedAsserts) > 0 {
		m.line("**Failed asserts**")
		m.line("")
		for _, f := range c.FailedAsserts {
			s := "- " + mdEscape(f.Run) + ": `" + f.Assert.Name + "` " + mdCode(f.Assert.Condition)
			if f.Assert.Message != "" {
				s += " — " + mdEscape(f.Assert.Message)
			}
			if !m.line(s) {
				break
			}
		}
		m.line("")
	}
	differs := false
	for _, e := range c.Environment {
		differs = differs || (e.Differs && e.Name != "git commit")
	}
	if differs {
		m.line("⚠️ **The environment differs from the baseline's**; changes may not be the code's.")
		m.line("")
		mdEnv(m, c.Environment)
	}
	if c.Current != nil {
		for _, s := range sweeps(c.Current, c.Baseline) {
			mdCharts(m, s)
		}
	}

	m.line("<details><summary>All " + strconv.Itoa(len(c.Rows)) + " metrics, environment and warnings</summary>")
	m.line("")
	m.line("| run | metric | baseline | current | change | band | verdict |")
	m.line("|---|---|---:|---:|---:|---:|---|")
	for i := range c.Rows {
		if !m.line(mdRow(&c.Rows[i], alpha)) {
			break
		}
	}
	m.line("")
	if !differs {
		mdEnv(m, c.Environment)
	}
	if len(c.Warnings) > 0 {
		m.line("**Warnings**")
		m.line("")
		for _, w := range c.Warnings {
			if !m.line("- " + mdEscape(w.Error())) {
				break
			}
		}
		m.line("")
	}
	m.limit += 400
	m.line("</details>")
	if m.dropped > 0 {
		m.line("")
		m.line(fmt.Sprintf("_Truncated: %d more lines did not fit in %d characters; see the JSON or HTML report for everything._", m.dropped, limit))
	}
	return m.b.String()
}

// mdBuilder appends lines until its limit, then counts what it drops.
type mdBuilder struct {
	b       strings.Builder
	limit   int
	dropped int
}

// line appends s and a newline, and returns false once the limit is reached.
func (m *mdBuilder) line(s string) bool {
	if m.b.Len()+len(s)+1 > m.limit {
		m.dropped++
		return false
	}
	m.b.WriteString(s)
	m.b.WriteByte('\n')
	return true
}

func mdRow(r *compare.Row, alpha float64) string {
	icon := map[compare.Verdict]string{compare.Regression: "❌ ", compare.Improvement: "🚀 ", compare.Inconclusive: "❔ ", compare.Invalid: "⚠️ "}[r.Verdict]
	return "| " + mdEscape(r.Run) + " | " + r.Metric + " | " + fmtValue(r.Baseline, r.Unit) + " | " + fmtValue(r.Current, r.Unit) +
		" | " + mdEscape(deltaCell(r, alpha)) + " | " + bandText(r.Tolerance, r.Unit) + " | " + icon + verdictCell(r) + " |"
}

func mdEnv(m *mdBuilder, env []compare.EnvField) {
	m.line("| environment | baseline | current |")
	m.line("|---|---|---|")
	for _, e := range env {
		if e.Baseline == "" && e.Current == "" {
			continue
		}
		name := e.Name
		if e.Differs && e.Name != "git commit" {
			name = "**" + name + "** ⚠️"
		}
		m.line("| " + name + " | " + mdCode(e.Baseline) + " | " + mdCode(e.Current) + " |")
	}
	m.line("")
}

// mdCharts draws throughput and TTFT p95 against the sweep key, baseline and current.
func mdCharts(m *mdBuilder, s sweep) {
	charts := []struct {
		title, unit string
		get         func(*results.Run) float64
	}{
		{"output throughput", "tok/s", func(r *results.Run) float64 { return r.Summary.Throughput.OutputTokens }},
		{"TTFT p95", "ms", func(r *results.Run) float64 { return r.Summary.TTFT.P95 }},
	}
	labels := make([]string, len(s.Labels))
	for i, l := range s.Labels {
		labels[i] = strconv.Quote(l)
	}
	for _, ch := range charts {
		var cur, base []string
		hasBase := false
		for i := range s.Labels {
			cur = append(cur, chartValue(s.Current[i], ch.get))
			base = append(base, chartValue(s.Baseline[i], ch.get))
			hasBase = hasBase || measured(s.Baseline[i])
		}
		legend := "current"
		if hasBase {
			legend = "first line baseline, second line current"
		}
		m.line(fmt.Sprintf("**%s: %s vs %s** (%s)", mdEscape(s.Scenario), ch.title, mdEscape(s.Key), legend))
		m.line("")
		m.line("```mermaid")
		m.line("xychart-beta")
		m.line(fmt.Sprintf("    title %q", s.Scenario+": "+ch.title))
		m.line(fmt.Sprintf("    x-axis %q [%s]", s.Key, strings.Join(labels, ", ")))
		m.line(fmt.Sprintf("    y-axis %q", ch.unit))
		if hasBase {
			m.line("    line [" + strings.Join(base, ", ") + "]")
		}
		m.line("    line [" + strings.Join(cur, ", ") + "]")
		m.line("```")
		m.line("")
	}
}

// chartValue is a run's value for a mermaid series; 0 where there is none,
// since xychart-beta has no gaps.
func chartValue(r *results.Run, get func(*results.Run) float64) string {
	if !measured(r) {
		return "0"
	}
	return strconv.FormatFloat(get(r), 'f', 1, 64)
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

func mdCode(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "`", "'"), "|", `\|`) + "`"
}
