package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// gpuSeries is ten samples a second apart of two GPUs: utilisation 50..95 %
// and 30..48 %, memory 70000..70900 and 35000 MiB, power 300..390 and 200 W.
func gpuSeries(source results.GPUSource) *results.GPUSeries {
	s := &results.GPUSeries{Source: source}
	for i := range 10 {
		f := float64(i)
		p0, p1 := 300+10*f, 200.0
		s.Samples = append(s.Samples, results.GPUSample{T: f, GPUs: []results.GPUReading{
			{UtilPercent: 50 + 5*f, MemoryUsedMiB: 70000 + 100*f, MemoryTotalMiB: 81920, PowerWatts: &p0},
			{UtilPercent: 30 + 2*f, MemoryUsedMiB: 35000, MemoryTotalMiB: 81920, PowerWatts: &p1},
		}})
	}
	return s
}

// gpuFixture is fixture's comparison with GPU figures on the current side:
// chat read through a DCGM exporter, the first sweep point through
// nvidia-smi, and bursty whose every read failed (its reason quotes a
// hostile exporter).
func gpuFixture() (base, cur *results.File, c *compare.Comparison) {
	base, cur, _ = fixture()
	for i := range cur.Runs {
		r := &cur.Runs[i]
		switch r.Name {
		case "chat":
			r.GPUSeries = gpuSeries(results.GPUSourceDCGM)
		case "sweep[concurrency=1]":
			r.GPUSeries = gpuSeries(results.GPUSourceNvidiaSMI)
			r.GPUSeries.Dropped = 1
			r.GPUSeries.Error = "read GPUs: nvidia-smi exited with code 9"
		case "bursty":
			r.GPUSeries = &results.GPUSeries{Source: results.GPUSourceDCGM, Dropped: 12,
				Error: "DCGM exporter: GPU \"<b>x|y</b>\" has no DCGM_FI_DEV_FB_USED ::error::boom"}
		}
		r.Summary.GPU = results.SummarizeGPU(r.GPUSeries)
	}
	return base, cur, compare.Compare(base, cur, compare.DefaultConfig())
}

func TestMarkdownGPUs(t *testing.T) {
	_, _, c := gpuFixture()
	md := Markdown(c, MarkdownOptions{Title: "llama-8b-gate"})
	checkGolden(t, "markdown_gpu.md", md)
	// The figures of chat's ten samples, without reading the golden file:
	// mean utilisation (72.5 + 39) / 2, the fullest GPU, the total power.
	for _, want := range []string{
		"| chat | 2 | DCGM exporter | 55.8% | 95.0% | 70900 MiB | 545 W | 590 W | - | - | 10 | 0 |",
		"| sweep\\[concurrency=1\\] | 2 | nvidia-smi | 55.8% | 95.0% | 70900 MiB | 545 W | 590 W | - | - | 10 | 1 |",
		"| bursty | - | DCGM exporter | - | - | - | - | - | - | - | 0 | 12 |",
		"<summary>All 28 metrics, GPUs, environment and warnings</summary>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "<b>x") || strings.Contains(md, "x|y") {
		t.Errorf("the exporter's text is not escaped in the markdown")
	}
	if !strings.Contains(md, "- bursty: 12 of 12 GPU reads failed; the last: DCGM exporter:") {
		t.Errorf("markdown does not say why bursty has no GPU figures")
	}
	// Without GPU figures there is no GPU table.
	_, _, plain := fixture()
	if md := Markdown(plain, MarkdownOptions{}); strings.Contains(md, "**GPUs**") || strings.Contains(md, "GPUs, ") {
		t.Errorf("a GPU table without GPU figures")
	}
}

func TestRunTableGPUFailures(t *testing.T) {
	_, cur, _ := gpuFixture()
	var b strings.Builder
	if err := RunTable(&b, cur); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"\nGPUs:\n- sweep[concurrency=1]: 1 of 11 GPU reads failed; the last: read GPUs: nvidia-smi exited with code 9\n",
		"- bursty: 12 of 12 GPU reads failed; the last: DCGM exporter: GPU",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("run table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "- chat:") {
		t.Errorf("chat's reads all succeeded, yet it is listed:\n%s", got)
	}
}

func TestHTMLGPUs(t *testing.T) {
	base, cur, c := gpuFixture()
	var b bytes.Buffer
	if err := HTML(&b, cur, base, c); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// The sweep, two CDFs a run, and three GPU charts for each of the two
	// runs with GPU samples (bursty has none to plot).
	if n, want := strings.Count(page, "<svg "), 1+2*len(cur.Runs)+2*3; n != want {
		t.Errorf("report has %d charts, want %d", n, want)
	}
	for _, want := range []string{"GPU util", "GPU mem", "GPU power", "chat: GPU utilisation", "chat: GPU memory used", "chat: GPU power"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The GPU charts come right after their run's latency charts, in the
	// run's own row.
	row := page[strings.Index(page, "chat: TTFT CDF"):]
	row = row[:strings.Index(row, "</div>")]
	if !strings.Contains(row, "chat: E2EL CDF") || !strings.Contains(row, "chat: GPU power") || strings.Contains(row, "sweep[") {
		t.Errorf("chat's row of charts is not its CDFs then its GPU charts")
	}
	var run *results.Run
	for i := range cur.Runs {
		if cur.Runs[i].Name == "chat" {
			run = &cur.Runs[i]
		}
	}
	var charts strings.Builder
	for _, ch := range gpuSeriesCharts(run) {
		charts.WriteString(string(ch) + "\n")
	}
	checkGolden(t, "gpu_charts.html", charts.String())
}

func TestGPUSeriesChartsEdgeCases(t *testing.T) {
	one := gpuSeries("")
	for i := range one.Samples {
		one.Samples[i].GPUs = one.Samples[i].GPUs[:1]
	}
	one.Samples[3].GPUs[0].PowerWatts = nil // a sample without power is left out of the power chart
	charts := gpuSeriesCharts(&results.Run{Name: "one", GPUSeries: one})
	if len(charts) != 3 || strings.Contains(string(charts[0]), "busiest GPU") {
		t.Errorf("one GPU: %d charts, the busiest GPU drawn beside the mean", len(charts))
	}
	if got := strings.Count(string(charts[2]), " L"); got != 8 {
		t.Errorf("power line has %d segments, want 8 (9 samples with power)", got)
	}
	noPower := gpuSeries("")
	for i := range noPower.Samples {
		for j := range noPower.Samples[i].GPUs {
			noPower.Samples[i].GPUs[j].PowerWatts = nil
		}
	}
	if n := len(gpuSeriesCharts(&results.Run{Name: "p", GPUSeries: noPower})); n != 2 {
		t.Errorf("no power: %d charts, want utilisation and memory", n)
	}
	short := gpuSeries("")
	short.Samples = short.Samples[:1]
	if n := len(gpuSeriesCharts(&results.Run{Name: "s", GPUSeries: short})); n != 0 {
		t.Errorf("one sample: %d charts", n)
	}
}
