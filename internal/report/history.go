package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/history"
	"github.com/llmgate/llmgate/internal/words"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// HistoryOptions tune the renderings of a history.
type HistoryOptions struct {
	// Store names the store in accept hints and titles.
	Store string
	// Entries is how many entries were read.
	Entries int
	// MaxRows bounds the markdown table; 0 means 20.
	MaxRows int
}

// fmtP formats a p-value as reports do: "p=0.012", "p<0.001".
func fmtP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// significance is a change point's p-value and, for a step the
// recent-step test found among the newest entries, "(recent)": its p is
// judged at that test's share of the level, not E-divisive's.
func significance(c *history.ChangePoint) string {
	if c.Recent {
		return fmtP(c.P) + " (recent)"
	}
	return fmtP(c.P)
}

// HistoryHeadline says whether a history check passes: the unaccepted
// regression change points, else that there are none.
func HistoryHeadline(r *history.Result) string {
	if len(r.Unaccepted()) > 0 {
		return verdictMark(compare.DecisionFail) + " " + historyText(r)
	}
	return verdictMark(compare.DecisionPass) + " " + historyText(r)
}

// historyText is the history headline without its mark.
func historyText(r *history.Result) string {
	all, un := len(r.All()), len(r.Unaccepted())
	series := len(r.Series)
	points := words.Count(all, "change point", "change points")
	switch {
	case un > 0:
		return fmt.Sprintf("%s not accepted (%s in %d series)", words.Count(un, "regression change point", "regression change points"), points, series)
	case all > 0:
		return fmt.Sprintf("no unaccepted regression (%s in %d series)", points, series)
	}
	return fmt.Sprintf("no change point in %d series", series)
}

// changeRows are the change points, newest first.
func changeRows(r *history.Result) []history.Found {
	all := r.All()
	slices.SortStableFunc(all, func(a, b history.Found) int {
		return b.Series.Points[b.After].Entry.Time.Compare(a.Series.Points[a.After].Entry.Time)
	})
	return all
}

// kind is a change point's verdict word.
func kind(f history.Found) string {
	switch {
	case f.Regression && f.Accepted != nil:
		return "regression (accepted)"
	case f.Regression:
		return "regression"
	}
	return "improvement"
}

// commitsAround is "4f2a9c1 → 9b1c2d3", the commits either side.
func commitsAround(f history.Found) (string, string) {
	return untrusted.Short(f.Series.Points[f.Before].Entry.ShortCommit(), 12), untrusted.Short(f.Series.Points[f.After].Entry.ShortCommit(), 12)
}

// leastChange is the least magnitude a series was searched with.
func leastChange(s *history.Series, minChange float64) string {
	if minChange > 0 {
		return fmt.Sprintf("%g%%", 100*minChange)
	}
	if s.Tolerance.Relative {
		return fmt.Sprintf("%g%%", 100*s.Tolerance.Amount/2)
	}
	return Value(s.Tolerance.Amount/2, s.Metric.Unit)
}

// HistoryCheck writes what history check found: one row per change point,
// newest first, the headline, the entries not used, and for each
// unaccepted regression the command that accepts it.
func HistoryCheck(w io.Writer, r *history.Result, o HistoryOptions) error {
	rows := changeRows(r)
	if len(rows) > 0 {
		t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true}}
		t.add("suite", "run", "metric", "kind", "commits", "before", "after", "change", "significance", "entries since")
		for _, f := range rows {
			from, to := commitsAround(f)
			u := f.Series.Metric.Unit
			t.add(untrusted.Short(f.Series.Suite, 40), untrusted.Short(f.Series.Run, 60), f.Series.Metric.Name, kind(f), from+" → "+to,
				Value(f.From, u), Value(f.To, u), fmtChange(f.Change), significance(f.ChangePoint), fmt.Sprint(f.Since))
		}
		if err := t.write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	var unused []string
	seen := map[string]bool{}
	for _, s := range r.Series {
		for _, p := range s.Points {
			if p.Status != results.StatusOK && !seen[p.Entry.ID+s.Run] {
				seen[p.Entry.ID+s.Run] = true
				unused = append(unused, fmt.Sprintf("%s %s %s", untrusted.Short(p.Entry.ShortCommit(), 12), untrusted.Short(s.Run, 60), p.Status))
			}
		}
	}
	if len(unused) > 0 {
		fmt.Fprintf(w, "Not used as evidence (%d): %s\n", len(unused), strings.Join(unused, ", "))
	}
	fmt.Fprintf(w, "%s\n", HistoryHeadline(r))
	for _, f := range r.Unaccepted() {
		_, to := commitsAround(f)
		fmt.Fprintf(w, "  accept: llmgate history accept --store %s --suite %s --run %s --metric %s --at %s --reason '…'\n",
			shellWord(o.Store), shellWord(f.Series.Suite), shellWord(f.Series.Run), f.Series.Metric.Name, shellWord(to))
	}
	return nil
}

// shellWord quotes s for a shell when it needs it (text from outside goes
// through untrusted.Line first).
func shellWord(s string) string {
	s = untrusted.Short(s, 200)
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@=,+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HistoryList writes one line per entry: when, its ID, commit, ref, suite
// and its runs' statuses.
func HistoryList(w io.Writer, entries []*history.Entry) error {
	t := &table{left: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	t.add("measured", "entry", "commit", "ref", "suite", "runs")
	for _, e := range entries {
		t.add(e.Time.Format("2006-01-02 15:04 MST"), e.ID, untrusted.Short(e.ShortCommit(), 12), untrusted.Short(e.Ref, 60), untrusted.Short(e.Suite, 40), runStatuses(e))
	}
	if err := t.write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, words.Count(len(entries), "entry", "entries"))
	return err
}

// runStatuses is "2 ok" or "1 ok, 1 invalid (batch)".
func runStatuses(e *history.Entry) string {
	ok := 0
	var bad []string
	for _, r := range e.Runs {
		if r.Healthy() {
			ok++
		} else {
			bad = append(bad, fmt.Sprintf("%s (%s)", r.Status, untrusted.Short(r.Name, 40)))
		}
	}
	parts := []string{fmt.Sprintf("%d ok", ok)}
	s := strings.Join(append(parts, bad...), ", ")
	if e.Partial {
		s += ", file partial"
	}
	return s
}

// HistoryMarkdown renders the newest change points for a step summary: the
// headline, then a table of at most MaxRows rows, newest first.
func HistoryMarkdown(r *history.Result, o HistoryOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### llmgate history\n\n%s\n\n", HistoryHeadline(r))
	rows := changeRows(r)
	limit := o.MaxRows
	if limit <= 0 {
		limit = 20
	}
	if len(rows) > 0 {
		b.WriteString("| | suite | run | metric | commits | before → after | change | significance | entries since |\n|---|---|---|---|---|---|---:|---:|---:|\n")
		for i, f := range rows {
			if i == limit {
				fmt.Fprintf(&b, "\n%d older change points are left out.\n", len(rows)-limit)
				break
			}
			icon := "🟢"
			if f.Regression {
				icon = "🔴"
				if f.Accepted != nil {
					icon = "⚪ accepted"
				}
			}
			from, to := commitsAround(f)
			u := f.Series.Metric.Unit
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s → %s | %s → %s | %s | %s | %d |\n", icon, untrusted.Code(f.Series.Suite), untrusted.Code(f.Series.Run), f.Series.Metric.Name,
				untrusted.Code(from), untrusted.Code(to), Value(f.From, u), Value(f.To, u), fmtChange(f.Change), significance(f.ChangePoint), f.Since)
		}
	}
	fmt.Fprintf(&b, "\n<sub>%d entries of %s · E-divisive means with a permutation test</sub>\n", o.Entries, untrusted.Markdown(o.Store))
	return untrusted.DefuseMarkers(b.String())
}

// Colours of the trend charts.
const (
	colorRegression  = colorKnee
	colorImprovement = colorPass
	colorUnused      = "#bf8700"
)

// HistoryHTML writes the trend page: per suite, run and metric, the series
// over the entries with each estimate's interval, the change points as
// rules labelled with the commits either side, and the runs that are not
// evidence as crosses apart from the line; then the change points and the
// unused entries as tables. It loads nothing from anywhere.
func HistoryHTML(w io.Writer, r *history.Result, o HistoryOptions) error {
	d := trendData{Title: "llmgate history", Store: untrusted.Line(o.Store), Entries: o.Entries, Headline: historyText(r), Failed: len(r.Unaccepted()) > 0}
	bySuite := map[string]*trendSuite{}
	for _, s := range r.Series {
		ts := bySuite[s.Suite]
		if ts == nil {
			ts = &trendSuite{Name: untrusted.Line(s.Suite)}
			bySuite[s.Suite] = ts
			d.Suites = append(d.Suites, ts)
		}
		ts.Charts = append(ts.Charts, trendChart(s))
		for _, p := range s.Points {
			if !p.Used() {
				reason := string(p.Status)
				if !p.Has && p.Status == results.StatusOK {
					reason = "metric missing"
				}
				ts.Unused = append(ts.Unused, trendUnused{Time: p.Entry.Time.Format(time.DateTime), Commit: untrusted.Line(p.Entry.ShortCommit()),
					Run: untrusted.Line(s.Run), Metric: s.Metric.Name, Status: reason, Reasons: untrusted.Short(strings.Join(p.Reasons, "; "), 300)})
			}
		}
	}
	for _, f := range changeRows(r) {
		from, to := commitsAround(f)
		u := f.Series.Metric.Unit
		d.Changes = append(d.Changes, trendChange{Kind: kind(f), Regression: f.Regression && f.Accepted == nil, Suite: untrusted.Line(f.Series.Suite), Run: untrusted.Line(f.Series.Run),
			Metric: f.Series.Metric.Name, From: from, To: to, Before: Value(f.From, u), After: Value(f.To, u), Change: fmtChange(f.Change), P: significance(f.ChangePoint),
			Accepted: acceptedText(f.Accepted)})
	}
	if err := trendPage.Execute(w, d); err != nil {
		return fmt.Errorf("writing the trend report: %w", err)
	}
	return nil
}

func acceptedText(a *history.Acceptance) string {
	if a == nil {
		return ""
	}
	return untrusted.Short(fmt.Sprintf("by %s on %s: %s", a.By, a.At.Format(time.DateOnly), a.Reason), 300)
}

// trendChart draws one series: x is the entry's place among the suite's
// entries that have the run.
func trendChart(s *history.Series) template.HTML {
	u := s.Metric.Unit
	used := series{Name: "estimate (95% interval)", Color: colorCur}
	unused := series{Name: "not evidence", Color: colorUnused, Marks: true}
	for i, p := range s.Points {
		if !p.Has {
			continue
		}
		lo, hi := p.Estimate.Bounds()
		tip := fmt.Sprintf("%s %s: %s", untrusted.Short(p.Entry.ShortCommit(), 12), p.Entry.Time.Format(time.DateTime), Value(p.Estimate.Value, u))
		if !math.IsNaN(lo) {
			tip += fmt.Sprintf(" [%s, %s]", Value(lo, u), Value(hi, u))
		}
		target := &used
		if !p.Used() {
			target, tip = &unused, tip+" ("+string(p.Status)+")"
		}
		target.Pts = append(target.Pts, [2]float64{float64(i + 1), p.Estimate.Value})
		target.Lo, target.Hi = append(target.Lo, lo), append(target.Hi, hi)
		target.Tips = append(target.Tips, tip)
	}
	var rules []rule
	for _, c := range s.ChangePoints {
		color := colorImprovement
		if c.Regression {
			color = colorRegression
		}
		from := untrusted.Short(s.Points[c.Before].Entry.ShortCommit(), 12)
		to := untrusted.Short(s.Points[c.After].Entry.ShortCommit(), 12)
		rules = append(rules, rule{X: float64(c.After) + 0.5, Label: fmt.Sprintf("%s→%s %s", from, to, fmtChange(c.Change)), Color: color})
	}
	ss := []series{used}
	if len(unused.Pts) > 0 {
		ss = append(ss, unused)
	}
	title := fmt.Sprintf("%s · %s (band %s)", untrusted.Short(s.Run, 60), s.Metric.Name, Band(s.Tolerance, u))
	return ruledChart(title, "entry (oldest first)", s.Metric.Name+unitSuffix(u), ss, rules)
}

func unitSuffix(u results.Unit) string {
	if u == "" || u == results.Count {
		return ""
	}
	return " (" + string(u) + ")"
}

type trendData struct {
	Title, Store, Headline string
	Entries                int
	Failed                 bool
	Suites                 []*trendSuite
	Changes                []trendChange
}

type trendSuite struct {
	Name   string
	Charts []template.HTML
	Unused []trendUnused
}

type trendUnused struct{ Time, Commit, Run, Metric, Status, Reasons string }

type trendChange struct {
	Kind                                                             string
	Regression                                                       bool
	Suite, Run, Metric, From, To, Before, After, Change, P, Accepted string
}

var trendPage = template.Must(template.New("trend").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1600px;padding:0 24px;color:#1f2328}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d0d7de}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
.regression td{background:#ffebe9}.chart{max-width:100%;height:auto}
.verdict{font-size:18px;padding:8px 12px;border-radius:6px;background:#dafbe1}.verdict.fail{background:#ffebe9}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart text{font-size:11px;fill:#57606a}.chart text.title{font-size:13px;fill:#1f2328}
` + markCSS + `</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.Entries}} entries of <code>{{.Store}}</code></p>
<p class="verdict{{if .Failed}} fail{{end}}"><span class="verdict-mark {{if .Failed}}fail{{else}}pass{{end}}" role="img" aria-label="{{if .Failed}}fail{{else}}pass{{end}}"></span>{{.Headline}}</p>
{{if .Changes}}<h2>Change points, newest first</h2>
<table><tr><th></th><th>suite</th><th>run</th><th>metric</th><th>commits</th><th>before</th><th>after</th><th>change</th><th>significance</th><th>accepted</th></tr>
{{range .Changes}}<tr{{if .Regression}} class="regression"{{end}}><td>{{.Kind}}</td><td>{{.Suite}}</td><td>{{.Run}}</td><td>{{.Metric}}</td><td><code>{{.From}}</code> → <code>{{.To}}</code></td><td>{{.Before}}</td><td>{{.After}}</td><td>{{.Change}}</td><td>{{.P}}</td><td>{{.Accepted}}</td></tr>
{{end}}</table>
{{end}}{{range .Suites}}<h2>Suite {{.Name}}</h2>
<div class="charts">{{range .Charts}}{{.}}{{end}}</div>
{{if .Unused}}<h3>Not used as evidence</h3>
<table><tr><th>measured</th><th>commit</th><th>run</th><th>metric</th><th>status</th><th>why</th></tr>
{{range .Unused}}<tr><td>{{.Time}}</td><td><code>{{.Commit}}</code></td><td>{{.Run}}</td><td>{{.Metric}}</td><td>{{.Status}}</td><td>{{.Reasons}}</td></tr>
{{end}}</table>
{{end}}{{end}}</body></html>
`))
