package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// MaxMarkdown is GitHub's limit on a step summary or comment body, less a margin.
const MaxMarkdown = 65000

// MarkdownOptions tune Markdown.
type MarkdownOptions struct {
	// Title is the heading; when empty, "llmgate · " and the suite's name
	// (escaped), the same for compare and gate.
	Title string
	// MaxLen bounds the output in bytes; 0 means MaxMarkdown.
	MaxLen int
	// ReportURL, when set, is linked as the full report (the workflow's
	// HTML report artifact, say). The caller checks it (CheckReportURL).
	ReportURL string
	// Problems are why a gate could not judge; when the comparison's
	// decision is error they are listed in a CAUTION block under the heading.
	Problems []error
	// Notes are what the reader must know that does not change the verdict,
	// one NOTE block each under the heading.
	Notes []string
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
		title = defaultTitle(c)
	}
	alpha := alphaOf(c)
	m := &mdBuilder{limit: limit - 400}                             // room for the closing tag and the truncation note
	m.line("### " + title + ": " + untrusted.Markdown(Headline(c))) // a run's error may be in it
	m.line("")
	if blocks := gateBlocks(c, opts.Problems, opts.Notes); blocks != "" {
		for _, l := range strings.Split(strings.TrimSuffix(blocks, "\n"), "\n") {
			m.line(l)
		}
	}
	if opts.ReportURL != "" {
		m.line("📄 [Full HTML report](" + opts.ReportURL + ")")
		m.line("")
	}

	if len(c.FailedAsserts) > 0 {
		m.line("**Failed asserts**")
		m.line("")
		for _, f := range c.FailedAsserts {
			s := "- " + untrusted.Markdown(f.Run) + ": " + untrusted.Code(f.Assert.Name) + " " + f.Assert.Condition.Code()
			if f.Assert.Message != "" {
				s += " — " + f.Assert.Message.Markdown()
			}
			m.line(s)
		}
		m.line("")
	}
	mdShortfalls(m, c.Current)
	if c.Baseline == nil && c.Current != nil { // nothing to compare: the run's own numbers and asserts
		mdRuns(m, c.Current)
		mdAsserts(m, c.Current)
	}
	mdCapacity(m, c.Current, c.Baseline)
	mdSlices(m, c.Current)
	mdReasoning(m, c.Current)
	mdServerSplit(m, c.Current)
	mdSpecDecode(m, c.Current)
	mdToolCalls(m, c.Current)
	var changed []*compare.Row
	for i := range c.Rows {
		if r := &c.Rows[i]; r.Verdict != compare.Unchanged {
			changed = append(changed, r)
		}
	}
	if len(changed) > 0 {
		m.line(mdHeader)
		m.line(mdAlign)
		for _, r := range changed {
			m.line(mdRow(r, alpha))
		}
		m.line("")
	}
	if notes := importedNotes(c); len(notes) > 0 {
		for _, n := range notes {
			m.line("_" + untrusted.Markdown(n) + "_") // quotes the imported file
		}
		m.line("")
	}
	if bad := invalidRuns(c); len(bad) > 0 {
		m.line("⚠️ **Not judged** (the load generator's own checks failed, a run did not finish, or a run is missing):")
		m.line("")
		for _, n := range bad {
			m.line("- " + untrusted.Markdown(n.Run) + ": " + n.Reason.Markdown()) // may quote the server
		}
		m.line("")
	}
	if c.Current != nil {
		mdMissing(m, c.Current)
	}
	if runs := c.RerunRuns(); len(runs) > 0 {
		m.line("🔁 Rerun to confirm: " + untrusted.Code(strings.Join(runs, ", ")) + " — a single run is within run-to-run drift of the band.")
		m.line("")
	}
	differs := false
	for _, e := range c.Environment {
		differs = differs || (e.Differs && e.Name != "git commit")
	}
	if c.InOneJob() {
		m.line("🔀 **A/B in one job**: the baseline side (`--ab-var`) and the candidate ran in the same job, their blocks of requests interleaved; each change is judged over the block pairs.")
		m.line("")
		mdEnv(m, c.Environment, true)
		differs = true // shown
	} else if differs {
		m.line("⚠️ **The environment differs from the baseline's**; changes may not be the code's.")
		m.line("")
		mdEnv(m, c.Environment, false)
	}
	if c.Current != nil {
		for _, s := range sweeps(c.Current, c.Baseline) {
			mdCharts(m, s)
		}
	}

	if c.Current != nil {
		mdKnees(m, c.Current)
		mdHints(m, c)
	}
	summary := "All " + strconv.Itoa(len(c.Rows)) + " metrics, " + gpusAnd(c.Current) + "environment and warnings"
	if len(c.Rows) == 0 {
		summary = gpusAnd(c.Current) + "environment and warnings"
		summary = strings.ToUpper(summary[:1]) + summary[1:]
	}
	opened := m.block("<details><summary>"+summary+"</summary>", "")
	if len(c.Rows) > 0 {
		m.line(mdHeader)
		m.line(mdAlign)
		for i := range c.Rows {
			m.line(mdRow(&c.Rows[i], alpha))
		}
		m.line("")
	}
	if c.Current != nil {
		mdGPUs(m, c.Current)
		mdStartup(m, c.Baseline, c.Current)
	}
	switch {
	case c.Baseline == nil && c.Current != nil:
		mdCurrentEnv(m, c.Current)
	case !differs:
		mdEnv(m, c.Environment, false)
	}
	if ws := warnings(c); len(ws) > 0 {
		m.line("**Warnings**")
		m.line("")
		for _, w := range ws {
			m.line("- " + untrusted.Markdown(w)) // may quote the server
		}
		m.line("")
	}
	if opened {
		m.close("</details>")
	}
	if m.dropped > 0 {
		m.close("")
		m.close(fmt.Sprintf("_Truncated: %d more lines did not fit in %d characters; see the JSON or HTML report for everything._", m.dropped, limit))
	}
	return m.b.String()
}

// mdMissing lists the server features the runs' servers lacked, with
// what that cost: "- `/metrics` (every run): no server.* metrics ...".
func mdMissing(m *mdBuilder, cur *results.File) {
	rows := MissingFeatures(cur)
	if len(rows) == 0 {
		return
	}
	m.line("🔌 **Server features missing** (what llmgate did without them):")
	m.line("")
	for _, r := range rows {
		m.line("- " + untrusted.Code(r.Feature) + " (" + untrusted.Markdown(r.runsPhrase(len(cur.Runs))) + "): " + untrusted.Markdown(r.Cost))
	}
	m.line("")
}

// mdCapacity lists each capacity search's answer beside the baseline's:
// "- max_users: max users under SLO: 64 → 48".
func mdCapacity(m *mdBuilder, cur, base *results.File) {
	runs := capacityRuns(cur)
	if len(runs) == 0 {
		return
	}
	baseCap := map[string]*results.Capacity{}
	for _, r := range capacityRuns(base) {
		baseCap[r.Name] = r.Capacity
	}
	m.line("**Capacity under SLO**")
	m.line("")
	for _, r := range runs {
		slo := untrusted.Code(r.Capacity.SLO)
		if v := SLOValues(r.Capacity); v != "" {
			slo += ", with " + untrusted.Markdown(v)
		}
		m.line("- " + untrusted.Markdown(r.Name) + ": " + untrusted.Markdown(CapacityChange(baseCap[r.Name], r.Capacity)) + " (" + slo + ")")
	}
	m.line("")
}

// mdBuilder appends lines until its limit, then counts what it drops.
// Once a line is dropped every later one is too (a shorter line after a gap
// would leave a table or code fence torn), except what close forces in.
type mdBuilder struct {
	b       strings.Builder
	limit   int
	dropped int
}

// line appends s and a newline, and returns false once the limit is reached.
func (m *mdBuilder) line(s string) bool {
	return m.block(s)
}

// block appends all of lines or, when they don't fit, none of them, so a
// chart's code fence is never left open.
func (m *mdBuilder) block(lines ...string) bool {
	n := 0
	for _, s := range lines {
		n += len(s) + 1
	}
	if m.dropped > 0 || m.b.Len()+n > m.limit {
		m.dropped += len(lines)
		return false
	}
	for _, s := range lines {
		m.b.WriteString(s)
		m.b.WriteByte('\n')
	}
	return true
}

// close appends s past the limit: the closing tags and the truncation note,
// for which Markdown keeps room.
func (m *mdBuilder) close(s string) {
	m.b.WriteString(s)
	m.b.WriteByte('\n')
}

// mdHeader and mdAlign head the comparison tables: the values are the
// estimator's, with the spread of their 95% confidence intervals.
const (
	mdHeader = "| run | metric | estimator | baseline | current | change | band | verdict |"
	mdAlign  = "|---|---|---|---:|---:|---:|---:|---|"
)

func mdRow(r *compare.Row, alpha float64) string {
	icon := map[compare.Verdict]string{compare.Regression: "❌ ", compare.Improvement: "🚀 ", compare.Inconclusive: "❔ ", compare.Invalid: "⚠️ "}[r.Verdict]
	u := r.Metric.Unit
	return "| " + untrusted.Markdown(r.Run) + " | " + untrusted.Markdown(r.Metric.Name) + rowMark(r) + " | " + estimatorCell(r) + " | " + valueCell(r.Baseline, r.BaselineLo, r.BaselineHi, u) +
		" | " + currentCell(r) +
		" | " + mdDelta(r, alpha) + " | " + Band(r.Tolerance, u) + " | " + icon + verdictCell(r) + " |"
}

// mdDelta is the change cell: llmgate's figures, or for a metric that was
// not measured the reason, which may quote a results file.
func mdDelta(r *compare.Row, alpha float64) string {
	if r.Verdict == compare.NotMeasured {
		return r.Reason.Markdown()
	}
	return deltaCell(r, alpha)
}

// mdEnv is the environment table; ab heads it as the two sides of an A/B
// job, whose differences are on purpose and not flagged.
func mdEnv(m *mdBuilder, env []compare.EnvField, ab bool) {
	if ab {
		m.line("| environment | baseline side | candidate side |")
	} else {
		m.line("| environment | baseline | current |")
	}
	m.line("|---|---|---|")
	for _, e := range env {
		if e.Baseline == "" && e.Current == "" {
			continue
		}
		name := e.Name
		if e.Differs && e.Name != "git commit" && !ab {
			name = "**" + name + "** ⚠️"
		}
		m.line("| " + name + " | " + envCode(e.Baseline) + " | " + envCode(e.Current) + " |")
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
		labels[i] = mermaidString(l)
	}
	for _, ch := range charts {
		var cur, base []string
		hasBase := false
		for i := range s.Labels {
			cur = append(cur, chartValue(s.Current[i], ch.get))
			base = append(base, chartValue(s.Baseline[i], ch.get))
			hasBase = hasBase || measured(s.Baseline[i])
		}
		// xychart-beta draws no legend: the lines get the HTML report's
		// colours, named under the chart's heading.
		palette, legend := colorCur, "legend: blue line current"
		if hasBase {
			palette, legend = colorBase+", "+colorCur, "legend: grey line baseline, blue line current"
		}
		lines := []string{
			fmt.Sprintf("**%s: %s vs %s** (%s)", untrusted.Markdown(s.Scenario), ch.title, untrusted.Markdown(s.Key), legend),
			"",
			"```mermaid",
			`%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "` + palette + `"}}}}%%`,
			"xychart-beta",
			"    title " + mermaidString(s.Scenario+": "+ch.title),
			fmt.Sprintf("    x-axis %s [%s]", mermaidString(s.Key), strings.Join(labels, ", ")),
			"    y-axis " + mermaidString(ch.unit),
		}
		if hasBase {
			lines = append(lines, "    line ["+strings.Join(base, ", ")+"]")
		}
		lines = append(lines, "    line ["+strings.Join(cur, ", ")+"]", "```", "")
		m.block(lines...)
	}
}

// mermaidString quotes s (a run's scenario or sweep value, outside text)
// for a mermaid title or label: one safe line (untrusted.Line), and since
// mermaid strings have no escapes, double quotes and backticks become
// single quotes and angle brackets look-alikes, so no label holds HTML.
var mermaidReplacer = strings.NewReplacer(`"`, "'", "`", "'", "<", "‹", ">", "›")

func mermaidString(s string) string {
	return `"` + mermaidReplacer.Replace(untrusted.Line(s)) + `"`
}

// chartValue is a run's value for a mermaid series; 0 where there is none,
// since xychart-beta has no gaps.
func chartValue(r *results.Run, get func(*results.Run) float64) string {
	if !measured(r) {
		return "0"
	}
	return strconv.FormatFloat(get(r), 'f', 1, 64)
}

// envCode is an environment value as a code span, "-" when unknown.
func envCode(s untrusted.String) string {
	if s == "" {
		return "-"
	}
	return s.Code()
}
