package report

import (
	"html/template"
	"math"
	"strconv"

	"github.com/llmgate/llmgate/results"
)

// stageRules mark where each stage of a staged run began, in seconds
// after the first measured send (its first request's send): one rule a
// stage, labelled with its number. Nil for a run without stages.
func stageRules(r *results.Run) []rule {
	l := r.Requests
	if l == nil || len(l.Stage) != l.Len() {
		return nil
	}
	starts := map[int]int64{}
	for i, st := range l.Stage {
		if s, ok := starts[st]; st > 0 && (!ok || l.StartUS[i] < s) {
			starts[st] = l.StartUS[i]
		}
	}
	var out []rule
	for st := 1; st <= results.MaxStages; st++ {
		if s, ok := starts[st]; ok {
			out = append(out, rule{X: float64(s) / 1e6, Label: "stage " + strconv.Itoa(st), Color: colorKnee})
		}
	}
	return out
}

// maxRateBins bounds the bins of the send-rate chart.
const maxRateBins = 120

// sendRateChart plots a run's requests sent per second over the run: a
// staged run's with each stage's start ruled across it (what each stage
// sent against when), a trace replay's beside the trace's own arrivals
// (requests.planned_us), so that a replay that could not keep up shows
// where. False for a run that is neither.
func sendRateChart(r *results.Run) (template.HTML, bool) {
	rules := stageRules(r)
	l := r.Requests
	replay := l != nil && len(l.PlannedUS) == l.Len() && l.Len() > 0
	if len(rules) == 0 && !replay {
		return "", false
	}
	var last int64
	for _, s := range l.StartUS {
		last = max(last, s)
	}
	if replay {
		for _, p := range l.PlannedUS {
			last = max(last, p)
		}
	}
	// bins of a second, or wider so that a long run keeps maxRateBins
	width := math.Max(1, math.Ceil(float64(last)/1e6/maxRateBins))
	perSecond := func(name, color string, us []int64) series {
		counts := make([]float64, int(float64(last)/1e6/width)+1)
		for _, s := range us {
			counts[int(float64(max(s, 0))/1e6/width)]++
		}
		se := series{Name: name, Color: color}
		for i, n := range counts {
			se.Pts = append(se.Pts, [2]float64{(float64(i) + 0.5) * width, n / width})
		}
		return se
	}
	title := r.Name + ": requests sent per second, by stage"
	all := []series{perSecond("sent/s", colorCur, l.StartUS)}
	if replay {
		title = r.Name + ": the trace's arrivals and the requests sent, per second"
		all = append([]series{perSecond("trace/s", colorBase, l.PlannedUS)}, all...)
	}
	return ruledChart(title, "seconds into the run", "requests/s", all, rules), true
}

// partSlices are the rows the slices table shows for a run's parts: each
// mix member and each stage, named as its metrics are (mix.chat,
// stage.2).
func partSlices(r *results.Run) []results.Slice {
	var out []results.Slice
	for i := range r.Summary.Parts {
		p := &r.Summary.Parts[i]
		s := p.Summary
		sl := results.Slice{Label: string(p.Kind) + "." + p.Key, Requests: s.Requests, TTFT: s.TTFT, E2EL: s.E2EL}
		if s.Requests.Completed > 0 {
			sl.InputTokensMean = float64(s.InputTokens) / float64(s.Requests.Completed)
		}
		out = append(out, sl)
	}
	return out
}

// slicesTitle heads the slices table: "By turn and input length", and
// the mix members and stages too when some run of f has them.
func slicesTitle(f *results.File) string {
	for i := range f.Runs {
		if len(f.Runs[i].Summary.Parts) > 0 && f.Runs[i].Status != results.StatusFailed {
			return "By turn, input length, mix member and stage"
		}
	}
	return "By turn and input length"
}
