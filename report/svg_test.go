package report

import (
	"strings"
	"testing"
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
	pts := [][2]float64{{100, 150}, {102, 151}, {104, 150}, {101, 149}, {103, 152}}
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
