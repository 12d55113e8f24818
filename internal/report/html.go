package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/diagnose"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// HTML writes one self-contained page for cur: the verdict and comparison
// table when c is given, the run table, the throughput–latency curve of each
// sweep, latency CDFs of every run from its samples (base's dashed beside
// cur's when base is given) and failed asserts. Charts are inline SVG; the
// page loads nothing from anywhere. base and c may be nil.
func HTML(w io.Writer, cur, base *results.File, c *compare.Comparison) error {
	return HTMLWith(w, cur, base, c, HTMLOptions{})
}

// HTMLOptions are what HTMLWith draws besides the files and comparison.
type HTMLOptions struct {
	// Gate, when set, is the verdict a gate recorded on cur that c does
	// not reproduce, or that no comparison (c nil) can: the page's
	// headline is the gate's, and c's table, when given, follows it (c's
	// warnings should say why they differ).
	Gate *results.GateVerdict
}

// HTMLWith is HTML with options.
func HTMLWith(w io.Writer, cur, base *results.File, c *compare.Comparison, opts HTMLOptions) error {
	d := htmlData{Title: cur.Suite.Name, Created: cur.Created.UTC().Format("2006-01-02 15:04 MST"), Env: cur.Environment}
	if d.Title == "" {
		d.Title = "llmgate report"
	}
	d.RunsSection = runsSection(cur)
	for i := range cur.Runs {
		r := &cur.Runs[i]
		d.Runs = append(d.Runs, r)
		for _, a := range r.Asserts {
			if !a.Passed {
				d.FailedAsserts = append(d.FailedAsserts, compare.FailedAssert{Run: r.Name, Assert: a})
			}
		}
	}
	for _, m := range MissingFeatures(cur) {
		d.Missing = append(d.Missing, htmlMissing{Feature: untrusted.Line(m.Feature), Runs: untrusted.Line(m.runsPhrase(len(cur.Runs))), Cost: untrusted.Line(m.Cost)})
	}
	if c != nil {
		d.Headline, d.Mark = headlineText(c), htmlMark(c.Decide())
		// A gate that could not judge is no more green than one that failed.
		d.Failed = c.Decide() == compare.DecisionFail || c.Decide() == compare.DecisionError
		alpha := alphaOf(c)
		for i := range c.Rows {
			r := &c.Rows[i]
			d.Rows = append(d.Rows, htmlRow{Run: r.Run, Metric: r.Metric.Name + rowMark(r), Estimator: estimatorCell(r), Verdict: string(r.Verdict),
				Baseline: valueCell(r.Baseline, r.BaselineLo, r.BaselineHi, r.Metric.Unit),
				Current:  currentCell(r),
				Delta:    deltaCell(r, alpha), Band: Band(r.Tolerance, r.Metric.Unit), Reason: verdictCell(r) + ": " + r.Reason.Line()})
		}
		d.EnvFields = c.Environment
		d.ImportedNotes = importedNotes(c)
		d.Warnings = warnings(c)
	}
	if g := opts.Gate; g != nil {
		d.Headline, d.Mark = gateHeadlineText(g), htmlMark(compare.Decision(g.Decision))
		d.Failed = g.Decision == string(compare.DecisionFail) || g.Decision == string(compare.DecisionError)
	}
	knees := map[string]diagnose.Knee{}
	for _, k := range diagnose.Knees(cur) {
		knees[k.Scenario] = k
	}
	for _, s := range sweeps(cur, base) {
		d.Charts = append(d.Charts, sweepChart(s, knees[s.Scenario]))
	}
	baseRuns := map[string]*results.Run{}
	if base != nil {
		for i := range base.Runs {
			baseRuns[base.Runs[i].Name] = &base.Runs[i]
		}
	}
	// Each run's charts in a row of their own: its latency CDFs, then its
	// server's and its GPUs' time series.
	for _, r := range d.Runs {
		var charts []template.HTML
		b := baseRuns[r.Name]
		for _, fam := range []struct {
			name string
			get  func(*results.Samples) []float64
		}{{"TTFT", func(s *results.Samples) []float64 { return s.TTFT }}, {"E2EL", func(s *results.Samples) []float64 { return s.E2EL }}} {
			var ss []series
			if b != nil && b.Samples != nil && len(fam.get(b.Samples)) > 0 {
				ss = append(ss, series{Name: "baseline", Color: colorBase, Dash: true, Pts: cdf(fam.get(b.Samples))})
			}
			if r.Samples == nil {
				continue
			}
			if xs := fam.get(r.Samples); len(xs) > 0 {
				ss = append(ss, series{Name: "current", Color: colorCur, Pts: cdf(xs)})
				charts = append(charts, lineChart(r.Name+": "+fam.name+" CDF", fam.name+" (ms)", "% of requests", ss))
			}
		}
		if c, ok := serverSeriesChart(r); ok {
			charts = append(charts, c)
		}
		if c, ok := sendRateChart(r); ok {
			charts = append(charts, c)
		}
		charts = append(charts, gpuSeriesCharts(r)...)
		if len(charts) > 0 {
			d.RunCharts = append(d.RunCharts, charts)
		}
	}
	if err := page.Execute(w, d); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

// markCSS draws a headline's mark, a span of class verdict-mark and fail, error or
// pass, with shapes only: no font is needed.
const markCSS = `.verdict-mark{display:inline-block;position:relative;width:1em;height:1em;border-radius:50%;vertical-align:-0.15em;margin-right:.4em}
.verdict-mark.fail{background:#cf222e}.verdict-mark.error{background:#bc4c00}.verdict-mark.pass{background:#1a7f37}
.verdict-mark.fail::before,.verdict-mark.fail::after,.verdict-mark.error::before{content:"";position:absolute;background:#fff;left:.2em;top:.45em;width:.6em;height:.1em}
.verdict-mark.fail::before{transform:rotate(45deg)}.verdict-mark.fail::after{transform:rotate(-45deg)}
.verdict-mark.pass::before{content:"";position:absolute;left:.34em;top:.16em;width:.22em;height:.46em;border:solid #fff;border-width:0 .12em .12em 0;transform:rotate(45deg)}
`

// htmlMark names the headline's mark of a decision, drawn by the page's
// CSS: the emoji the terminal and markdown use (❌, ⛔, ✅) have no glyph in
// the fonts of a plain Debian chromium, which drew them as empty boxes.
func htmlMark(d compare.Decision) string {
	switch d {
	case compare.DecisionFail:
		return "fail"
	case compare.DecisionError:
		return "error"
	}
	return "pass"
}

// sweepChart is the throughput–latency curve of a sweep: output tokens/s
// against TTFT p95, one point per sweep value.
func sweepChart(s sweep, k diagnose.Knee) template.HTML {
	mk := func(name, color string, dash bool, runs []*results.Run) series {
		se := series{Name: name, Color: color, Dash: dash}
		for i, r := range runs {
			if measured(r) {
				se.Pts = append(se.Pts, [2]float64{r.Summary.Throughput.OutputTokens, r.Summary.TTFT.P95})
				se.Labels = append(se.Labels, s.Labels[i]) // the value: the title names the key
			}
		}
		return se
	}
	ss := []series{mk("baseline", colorBase, true, s.Baseline), mk("current", colorCur, false, s.Current)}
	// The knee and the best run that meets the asserts, as marked points.
	mark := func(name, color string, r *results.Run) {
		if r != nil && measured(r) {
			ss = append(ss, series{Name: name, Color: color, Pts: [][2]float64{{r.Summary.Throughput.OutputTokens, r.Summary.TTFT.P95}},
				Labels: []string{name}})
		}
	}
	mark("knee", colorKnee, k.At)
	mark("asserts hold", colorPass, k.BestPassing)
	return lineChart(s.Scenario+": throughput vs TTFT p95, points labelled by "+s.Key, "output tokens/s", "TTFT p95 (ms)", ss)
}

type htmlRow struct{ Run, Metric, Estimator, Verdict, Baseline, Current, Delta, Band, Reason string }

type htmlMissing struct{ Feature, Runs, Cost string }

type htmlData struct {
	Title, Created, Headline string
	// Mark is the class of the headline's mark (htmlMark).
	Mark string
	// RunsSection is the run table and what goes with it, as HTML tables.
	RunsSection   htmlRuns
	Failed        bool
	Env           results.Environment
	EnvFields     []compare.EnvField
	Rows          []htmlRow
	Runs          []*results.Run
	FailedAsserts []compare.FailedAssert
	Warnings      []string
	// Missing are the server features the runs' servers lacked.
	Missing []htmlMissing
	// ImportedNotes explain rows judged against an imported baseline.
	ImportedNotes []string
	Charts        []template.HTML
	// RunCharts are each run's charts: latency CDFs, server and GPU series.
	RunCharts [][]template.HTML
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1600px;padding:0 24px;color:#1f2328}
*{box-sizing:border-box}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:8px 0;max-width:100%}td,th{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:right;vertical-align:top}
td:first-child,th:first-child,td.l,th.l{text-align:left}.n,td:first-child{white-space:nowrap}td.why{min-width:14em}td.chg{min-width:17em}
code{overflow-wrap:anywhere}.chart{max-width:100%;height:auto}
.regression td{background:#ffebe9}.improvement td{background:#dafbe1}.inconclusive td{background:#fff8c5}
.verdict{font-size:18px;padding:8px 12px;border-radius:6px;background:#dafbe1}.verdict.fail{background:#ffebe9}
` + markCSS + `.charts{display:flex;flex-wrap:wrap;gap:12px}.charts+.charts{margin-top:12px}.chart text{font-size:11px;fill:#57606a}.chart text.title{font-size:13px;fill:#1f2328}
table.runs{font-size:13px}table.runs td,table.runs th{padding:3px 4px}table.runs th{font-weight:600;vertical-align:bottom}h3{font-size:15px;margin:16px 0 4px}
</style></head><body>
<h1>{{.Title}}</h1>
<p>Created {{.Created}}{{with .Env.Image}} · image <code>{{.}}</code>{{end}}{{with .Env.VLLMVersion}} · vLLM {{.}}{{end}}{{with .Env.GPU}} · {{.}}{{end}}{{with .Env.Model}} · model <code>{{.}}</code>{{end}}</p>
{{if .Headline}}<p class="verdict{{if .Failed}} fail{{end}}"><span class="verdict-mark {{.Mark}}" role="img" aria-label="{{.Mark}}"></span>{{.Headline}}</p>
<h2>Comparison with the baseline</h2>
<table><tr><th>run</th><th class="l">metric</th><th class="l">estimator</th><th>baseline</th><th>current</th><th>change</th><th>band</th><th class="l">verdict</th></tr>
{{range .Rows}}<tr class="{{.Verdict}}"><td>{{.Run}}</td><td class="l n">{{.Metric}}</td><td class="l n">{{.Estimator}}</td><td class="n">{{.Baseline}}</td><td class="n">{{.Current}}</td><td class="chg">{{.Delta}}</td><td class="n">{{.Band}}</td><td class="l why">{{.Reason}}</td></tr>
{{end}}</table>
{{range .ImportedNotes}}<p><i>{{.}}</i></p>
{{end}}{{end}}{{if .FailedAsserts}}<h2>Failed asserts</h2><ul>{{range .FailedAsserts}}<li>{{.Run}}: <b>{{.Assert.Name}}</b> <code>{{.Assert.Condition}}</code>{{with .Assert.Message}} — {{.}}{{end}}</li>{{end}}</ul>
{{end}}{{if .Missing}}<h2>Server features missing</h2><table><tr><th>feature</th><th class="l">runs</th><th class="l">what llmgate did without it</th></tr>
{{range .Missing}}<tr><td><code>{{.Feature}}</code></td><td class="l">{{.Runs}}</td><td class="l">{{.Cost}}</td></tr>
{{end}}</table>
{{end}}<h2>Runs</h2>
{{with .RunsSection}}{{template "table" .Table}}
{{range .Capacity}}<p>{{.Run}}: {{.Line}}</p>
{{template "table" .Probes}}
{{end}}{{with .Shortfalls}}<h3>` + shortfallsTitle + `</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{with .Slices}}<h3>{{$.RunsSection.SlicesTitle}}</h3>
{{template "table" .}}
{{end}}{{with .Startup}}<h3>Start-up</h3>
{{template "table" .}}
{{end}}{{with .SpecDecode}}<h3>Speculative decoding</h3>
{{template "table" .}}
{{end}}{{with .ToolCalls}}<h3>Tool calls</h3>
{{template "table" .}}
{{end}}{{with .GPUFailures}}<h3>GPUs</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{with .Knees}}<h3>Sweeps</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{with .Hints}}<h3>Diagnosis hints</h3><ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{end}}{{if .Charts}}<h2>Sweeps: throughput against latency</h2><div class="charts">{{range .Charts}}{{.}}{{end}}</div>
{{end}}{{if .RunCharts}}<h2>Latency distributions, server and GPUs over time</h2>{{range .RunCharts}}<div class="charts">{{range .}}{{.}}{{end}}</div>
{{end}}
{{end}}{{if .EnvFields}}<h2>Environment</h2><table><tr><th>attribute</th><th class="l">baseline</th><th class="l">current</th></tr>
{{range .EnvFields}}<tr><td>{{if .Differs}}<b>{{.Name}} ⚠</b>{{else}}{{.Name}}{{end}}</td><td class="l">{{.Baseline}}</td><td class="l">{{.Current}}</td></tr>
{{end}}</table>
{{end}}{{if .Warnings}}<h2>Warnings</h2><ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>
{{end}}</body></html>
{{define "table"}}<table class="runs"><tr>{{range $i, $h := .Head}}<th{{if index $.Text $i}} class="l"{{end}}>{{$h}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td class="{{if index $.Text $i}}l{{else}}n{{end}}">{{$c}}</td>{{end}}</tr>
{{end}}</table>{{end}}`))

// serverSeriesChart plots a run's server time series: KV cache usage (in
// %), requests running and waiting, against seconds into the run.
func serverSeriesChart(r *results.Run) (template.HTML, bool) {
	ss := r.ServerSeries
	if ss == nil || len(ss.TMS) < 2 {
		return "", false
	}
	line := func(name, color string, vals []float64, k float64) series {
		se := series{Name: name, Color: color}
		for i, v := range vals {
			if i < len(ss.TMS) {
				se.Pts = append(se.Pts, [2]float64{float64(ss.TMS[i]) / 1000, v * k})
			}
		}
		return se
	}
	lines := []series{line("KV cache %", colorKnee, ss.KVCacheUsage, 100), line("running", colorCur, ss.Running, 1), line("waiting", colorBase, ss.Waiting, 1)}
	return ruledChart(r.Name+": server over time", "seconds into the run", "KV % / requests", lines, stageRules(r)), true
}
