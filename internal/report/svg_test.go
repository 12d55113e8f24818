package report

import (
	stdhtml "html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/diagnose"
)

// TestFmtTick checks ticks carry the decimals their step needs, no more.
func TestFmtTick(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{80, 20, "80"},
		{5, 1, "5"},
		{2.5, 0.5, "2.5"},
		{0.30000000000000004, 0.1, "0.3"},
		{1250, 250, "1250"},
		{0.75, 0.25, "0.75"},
		{-0.0000001, 0.5, "0.0"}, // never "-0.0"
	}
	for _, tt := range tests {
		if got := fmtTick(tt.v, tt.step); got != tt.want {
			t.Errorf("fmtTick(%v, %v) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

// TestLabelsDoNotCollide checks two series with points at the same places
// (a baseline and a current sweep that barely moved) get labels that
// overlap neither each other nor a point, and that a label with no free
// place is left out rather than drawn over another.
func TestLabelsDoNotCollide(t *testing.T) {
	l := labelPlacer{bounds: box{0, 0, 500, 300}}
	var pts [][2]float64
	for i := range 16 { // more crowded points than there is room for labels around them
		pts = append(pts, [2]float64{100 + float64(i%4), 150 + float64(i/4)})
	}
	for _, p := range pts {
		l.taken = append(l.taken, box{p[0] - 3, p[1] - 3, p[0] + 3, p[1] + 3})
	}
	placed := 0
	for _, p := range pts {
		if _, _, ok := l.place(p[0], p[1], "c=16"); ok {
			placed++
		}
	}
	if placed == 0 || placed == len(pts) {
		t.Errorf("placed %d of %d labels on crowded points; want some, not all", placed, len(pts))
	}
	labels := l.taken[len(pts):]
	for i, a := range labels {
		for _, b := range l.taken[:len(pts)+i] {
			if a.overlaps(b) {
				t.Errorf("label %+v overlaps %+v", a, b)
			}
		}
	}
}

// TestChartTicksAndLegend checks the rendered chart's ticks read as whole
// numbers where the step is whole and that the legend sits above the plot.
func TestChartTicksAndLegend(t *testing.T) {
	svg := string(lineChart("t", "x", "y", []series{
		{Name: "baseline", Color: colorBase, Dash: true, Pts: [][2]float64{{1, 10}, {2, 40}, {4, 80}}, Labels: []string{"1", "2", "4"}},
		{Name: "current", Color: colorCur, Pts: [][2]float64{{1, 11}, {2, 42}, {4, 85}}, Labels: []string{"1", "2", "4"}},
	}))
	for _, bad := range []string{">80.0<", ">5.00<", ">1.00<"} {
		if strings.Contains(svg, bad) {
			t.Errorf("chart has a tick %s", bad)
		}
	}
	if !strings.Contains(svg, `y2="30" stroke="#8a8f98"`) || !strings.Contains(svg, ">current</text>") {
		t.Errorf("legend not in the row above the plot:\n%s", svg)
	}
}

// TestSweepLabelsClearOfCurves checks the point labels of sweep charts
// cross no curve and overlap no other label, near the origin too, where
// the first points of both curves crowd together: the fixture's sweep, and
// one whose throughput stops growing after its first points.
func TestSweepLabelsClearOfCurves(t *testing.T) {
	_, cur, _ := fixture()
	base, _, _ := fixture()
	crowded := []series{
		{Name: "baseline", Color: colorBase, Dash: true, Pts: [][2]float64{{50, 20}, {95, 22}, {180, 25}, {330, 31}, {520, 48}, {560, 120}, {570, 400}},
			Labels: []string{"1", "2", "4", "8", "16", "32", "64"}},
		{Name: "current", Color: colorCur, Pts: [][2]float64{{48, 24}, {90, 27}, {170, 30}, {300, 40}, {470, 70}, {500, 160}, {505, 450}},
			Labels: []string{"1", "2", "4", "8", "16", "32", "64"}},
	}
	charts := map[string]string{"crowded": string(lineChart("crowded", "x", "y", crowded))}
	for _, s := range sweeps(cur, base) {
		charts[s.Scenario] = string(sweepChart(s, diagnose.Knee{}))
	}
	pathRe := regexp.MustCompile(`<path class="series" d="([^"]+)"`)
	pointRe := regexp.MustCompile(`([ML])([-\d.]+) ([-\d.]+)`)
	labelRe := regexp.MustCompile(`<text x="([-\d.]+)" y="([-\d.]+)" class="pt">([^<]*)</text>`)
	for name, svg := range charts {
		var lines []segment
		for _, m := range pathRe.FindAllStringSubmatch(svg, -1) {
			var prev []float64
			for _, p := range pointRe.FindAllStringSubmatch(m[1], -1) {
				x, _ := strconv.ParseFloat(p[2], 64)
				y, _ := strconv.ParseFloat(p[3], 64)
				if p[1] == "L" && prev != nil {
					lines = append(lines, segment{prev[0], prev[1], x, y})
				}
				prev = []float64{x, y}
			}
		}
		labels := labelRe.FindAllStringSubmatch(svg, -1)
		if len(lines) == 0 || len(labels) < 6 {
			t.Fatalf("%s: %d curve segments and %d labels drawn; the test needs both", name, len(lines), len(labels))
		}
		var boxes []box
		for _, l := range labels {
			x, _ := strconv.ParseFloat(l[1], 64)
			y, _ := strconv.ParseFloat(l[2], 64)
			b := box{x, y - labelHeight, x + textWidth(stdhtml.UnescapeString(l[3])), y}
			for _, s := range lines {
				if s.crosses(b) {
					t.Errorf("%s: label %q at (%.1f, %.1f) lies across the curve %+v", name, l[3], x, y, s)
				}
			}
			for _, o := range boxes {
				if b.overlaps(o) {
					t.Errorf("%s: label %q at (%.1f, %.1f) overlaps another", name, l[3], x, y)
				}
			}
			boxes = append(boxes, b)
		}
	}
}
