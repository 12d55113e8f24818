package report

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// gpuRuns are the runs of f whose GPUs were sampled: with figures, or with
// reads that all failed.
func gpuRuns(f *results.File) []*results.Run {
	var out []*results.Run
	for i := range f.Runs {
		if r := &f.Runs[i]; r.Summary.GPU != nil || r.GPUSeries != nil {
			out = append(out, r)
		}
	}
	return out
}

// gpuDetailHead heads the GPU details: per run, the GPU count, where the
// readings came from, utilisation (mean, max), the most memory one GPU used,
// the GPUs' total power (mean, max), the energy they drew over the measured
// phase and per output token, and the reads summarized and failed.
var gpuDetailHead = []string{"run", "GPUs", "source", "util mean", "util max", "mem max", "power mean", "power max", "energy", "per token", "reads", "failed"}

// gpuDetailCells are a run's cells after its name; "-" for what was not measured.
func gpuDetailCells(r *results.Run) []string {
	cells := []string{"-", gpuSource(r.GPUSeries), "-", "-", "-", "-", "-", "-", "-", "0", "0"}
	if s := r.GPUSeries; s != nil {
		cells[10] = strconv.Itoa(s.Dropped)
	}
	g := r.Summary.GPU
	if g == nil {
		return cells
	}
	watts := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return Value(*v, results.Watts)
	}
	cells[0] = strconv.Itoa(g.Count)
	cells[2], cells[3] = Value(g.UtilMeanPercent, results.Percent), Value(g.UtilMaxPercent, results.Percent)
	cells[4] = Value(g.MemoryUsedMaxMiB, results.MiB)
	cells[5], cells[6] = watts(g.PowerMeanWatts), watts(g.PowerMaxWatts)
	if e := g.Energy; e != nil {
		cells[7] = Value(e.Joules, results.Joules)
		if e.PerToken != nil {
			cells[8] = Value(*e.PerToken, results.JoulesPerToken)
		}
	}
	cells[9] = strconv.Itoa(g.Samples)
	return cells
}

// gpuSource names where a series' readings came from.
func gpuSource(s *results.GPUSeries) string {
	switch {
	case s == nil || s.Source == "":
		return "-"
	case s.Source == results.GPUSourceDCGM:
		return "DCGM exporter"
	default:
		return string(s.Source)
	}
}

// gpuFailure is why a run's GPU reads failed, "" when none did: "12 of 12
// GPU reads failed; the last: REASON", the reason made safe to print.
func gpuFailure(r *results.Run) string {
	s := r.GPUSeries
	if s == nil || s.Dropped == 0 {
		return ""
	}
	msg := strconv.Itoa(s.Dropped) + " of " + strconv.Itoa(s.Dropped+len(s.Samples)) + " GPU reads failed"
	if s.Error != "" {
		msg += "; the last: " + untrusted.Line(s.Error) // may quote the exporter
	}
	return msg
}

// writeGPUFailures adds, under the run table, the runs whose GPU reads failed.
func writeGPUFailures(b *strings.Builder, f *results.File) {
	lines := gpuFailures(f)
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nGPUs:\n")
	for _, l := range lines {
		b.WriteString("- " + untrusted.Line(l) + "\n") // a run name and nvidia-smi's words
	}
}

// gpuFailures are "run: why its GPU reads failed", one per such run.
func gpuFailures(f *results.File) []string {
	var out []string
	for _, r := range gpuRuns(f) {
		if msg := gpuFailure(r); msg != "" {
			out = append(out, r.Name+": "+msg)
		}
	}
	return out
}

// mdGPUs is the Markdown table of the current runs' GPU figures, and why
// reads failed, when any run's GPUs were sampled.
func mdGPUs(m *mdBuilder, cur *results.File) {
	runs := gpuRuns(cur)
	if len(runs) == 0 {
		return
	}
	lines := []string{"**GPUs** (utilisation over every GPU; memory of the fullest GPU; power of all GPUs together)", "",
		"| " + strings.Join(gpuDetailHead, " | ") + " |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"}
	var failed []string
	for _, r := range runs {
		lines = append(lines, "| "+untrusted.Markdown(r.Name)+" | "+strings.Join(gpuDetailCells(r), " | ")+" |")
		if msg := gpuFailure(r); msg != "" {
			failed = append(failed, "- "+untrusted.Markdown(r.Name)+": "+untrusted.Markdown(msg))
		}
	}
	lines = append(lines, "")
	if len(failed) > 0 {
		lines = append(append(lines, failed...), "")
	}
	m.block(lines...)
}

// gpusAnd names the GPU table in the Markdown's collapsed section, when it has one.
func gpusAnd(cur *results.File) string {
	if cur == nil || len(gpuRuns(cur)) == 0 {
		return ""
	}
	return "GPUs, "
}

// gpuSeriesCharts plot a run's GPU samples against seconds into the
// measured phase: utilisation (mean over the GPUs, and the busiest one when
// there are several), the memory of the fullest GPU, and the GPUs' total
// power (samples where a GPU reported none are left out). None with fewer
// than two samples.
func gpuSeriesCharts(r *results.Run) []template.HTML {
	s := r.GPUSeries
	if s == nil || len(s.Samples) < 2 {
		return nil
	}
	mean := series{Name: "mean", Color: colorCur}
	busiest := series{Name: "busiest GPU", Color: colorKnee}
	mem := series{Name: "fullest GPU", Color: colorCur}
	power := series{Name: "all GPUs", Color: colorCur}
	several := false
	for _, smp := range s.Samples {
		if len(smp.GPUs) == 0 {
			continue
		}
		several = several || len(smp.GPUs) > 1
		var util, top, used, watts float64
		allPower := true
		for _, g := range smp.GPUs {
			util += g.UtilPercent
			top, used = max(top, g.UtilPercent), max(used, g.MemoryUsedMiB)
			if g.PowerWatts == nil {
				allPower = false
			} else {
				watts += *g.PowerWatts
			}
		}
		mean.Pts = append(mean.Pts, [2]float64{smp.T, util / float64(len(smp.GPUs))})
		busiest.Pts = append(busiest.Pts, [2]float64{smp.T, top})
		mem.Pts = append(mem.Pts, [2]float64{smp.T, used})
		if allPower {
			power.Pts = append(power.Pts, [2]float64{smp.T, watts})
		}
	}
	utilLines := []series{mean}
	if several {
		utilLines = append(utilLines, busiest)
	}
	const x = "seconds into the run"
	out := []template.HTML{
		lineChart(r.Name+": GPU utilisation", x, "utilisation (%)", utilLines),
		lineChart(r.Name+": GPU memory used", x, "memory ("+string(results.MiB)+")", []series{mem}),
	}
	if len(power.Pts) > 0 {
		out = append(out, lineChart(r.Name+": GPU power", x, "power ("+string(results.Watts)+")", []series{power}))
	}
	return out
}
