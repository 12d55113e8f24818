package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// series is one line of a chart.
type series struct {
	Name  string
	Color string
	Dash  bool
	Pts   [][2]float64
	// Labels, when set, are drawn beside each point.
	Labels []string
	// Lo and Hi, when set, are each point's interval, drawn as a whisker
	// (NaN: none).
	Lo, Hi []float64
	// Tips, when set, are each point's tooltip (an SVG title).
	Tips []string
	// Marks draws the points as crosses with no line between them: values
	// shown apart, such as runs that are not evidence.
	Marks bool
}

// rule is a vertical line across the plot at X, labelled at its top.
type rule struct {
	X     float64
	Label string
	Color string
}

const (
	svgW, svgH                 = 560, 300
	padL, padR, padT, padB     = 64, 16, 46, 44 // the title and the legend sit above the plot
	plotW, plotH               = svgW - padL - padR, svgH - padT - padB
	maxCDFPoints               = 200
	colorBase, colorCur, colGr = "#8a8f98", "#1f6feb", "#d0d7de"
	colorKnee, colorPass       = "#cf222e", "#1a7f37"
)

// lineChart draws series as an inline SVG with axes, ticks and a legend.
func lineChart(title, xLabel, yLabel string, ss []series) template.HTML {
	return ruledChart(title, xLabel, yLabel, ss, nil)
}

// ruledChart is lineChart with vertical rules across the plot.
func ruledChart(title, xLabel, yLabel string, ss []series, rules []rule) template.HTML {
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for j, p := range s.Pts {
			xmin, xmax = math.Min(xmin, p[0]), math.Max(xmax, p[0])
			ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
			if j < len(s.Hi) && !math.IsNaN(s.Hi[j]) {
				ymax = math.Max(ymax, s.Hi[j])
			}
		}
	}
	if math.IsInf(xmin, 0) {
		return ""
	}
	xt := niceTicks(xmin, xmax)
	yt := niceTicks(math.Min(ymin, 0), ymax)
	xmin, xmax, ymin, ymax = xt[0], xt[len(xt)-1], yt[0], yt[len(yt)-1]
	sx := func(x float64) float64 { return padL + along(x, xmin, xmax)*plotW }
	sy := func(y float64) float64 { return padT + plotH - along(y, ymin, ymax)*plotH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		svgW, svgH, svgW, svgH, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="16" class="title">%s</text>`, padL, html.EscapeString(title))
	xstep, ystep := xt[1]-xt[0], yt[1]-yt[0]
	for _, x := range xt {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(x), padT, sx(x), padT+plotH, colGr, sx(x), padT+plotH+16, fmtTick(x, xstep))
	}
	for _, y := range yt {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			padL, sy(y), padL+plotW, sy(y), colGr, padL-6, sy(y)+4, fmtTick(y, ystep))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, padL+plotW/2, svgH-6, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text transform="translate(14 %d) rotate(-90)" text-anchor="middle">%s</text>`, padT+plotH/2, html.EscapeString(yLabel))
	for _, r := range rules {
		fmt.Fprintf(&b, `<line class="rule" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="3 3"/><text x="%.1f" y="%d" class="rule">%s</text>`,
			sx(r.X), padT, sx(r.X), padT+plotH, r.Color, sx(r.X)+3, padT+10, html.EscapeString(r.Label))
	}
	labels := labelPlacer{bounds: box{padL, padT, padL + plotW, padT + plotH}}
	for _, s := range ss { // the curves' points and lines are kept clear of labels
		for j, p := range s.Pts {
			labels.taken = append(labels.taken, box{sx(p[0]) - 3, sy(p[1]) - 3, sx(p[0]) + 3, sy(p[1]) + 3})
			if j > 0 && !s.Marks {
				q := s.Pts[j-1]
				labels.lines = append(labels.lines, segment{sx(q[0]), sy(q[1]), sx(p[0]), sy(p[1])})
			}
		}
	}
	legendX := float64(padL)
	for _, s := range ss {
		if len(s.Pts) == 0 {
			continue
		}
		var d strings.Builder
		for j, p := range s.Pts {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, sx(p[0]), sy(p[1]))
		}
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="6 4"`
		}
		if !s.Marks {
			fmt.Fprintf(&b, `<path class="series" d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`, strings.TrimSpace(d.String()), s.Color, dash)
		}
		for j, p := range s.Pts {
			px, py := sx(p[0]), sy(p[1])
			if j < len(s.Lo) && j < len(s.Hi) && !math.IsNaN(s.Lo[j]) && !math.IsNaN(s.Hi[j]) {
				fmt.Fprintf(&b, `<line class="ci" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`, px, sy(s.Lo[j]), px, sy(s.Hi[j]), s.Color)
			}
			tip := ""
			if j < len(s.Tips) {
				tip = "<title>" + html.EscapeString(s.Tips[j]) + "</title>"
			}
			switch {
			case s.Marks:
				fmt.Fprintf(&b, `<path class="mark" d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="%s" stroke-width="1.5">%s</path>`, px-3, py-3, s.Color, tip)
			case tip != "":
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s">%s</circle>`, px, py, s.Color, tip)
			}
		}
		for j, label := range s.Labels {
			if j >= len(s.Pts) {
				break
			}
			px, py := sx(s.Pts[j][0]), sy(s.Pts[j][1])
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, px, py, s.Color)
			if x, y, ok := labels.place(px, py, label); ok {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="pt">%s</text>`, x, y, html.EscapeString(label))
			}
		}
		// The legend: a row above the plot, so it never covers a curve.
		fmt.Fprintf(&b, `<line x1="%.1f" y1="30" x2="%.1f" y2="30" stroke="%s" stroke-width="2"%s/><text x="%.1f" y="34">%s</text>`,
			legendX, legendX+20, s.Color, dash, legendX+26, html.EscapeString(s.Name))
		legendX += 26 + textWidth(s.Name) + 18
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// niceTicks returns about five round, evenly spaced tick values, the
// first at or below lo and the last at or above hi, for any finite lo and
// hi (at least two ticks, strictly increasing, all finite). A range too
// narrow to divide, where ticks would not differ from one another (equal
// values, values some ulps apart), is widened as a single value is, and a
// range as wide as float64 allows is divided without overflow (ticks
// beyond it are clamped to it). Non-finite bounds give 0 and 1.
func niceTicks(lo, hi float64) []float64 {
	if !finite(lo) || !finite(hi) {
		return []float64{0, 1}
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if scale := math.Max(math.Abs(lo), math.Abs(hi)); !(hi-lo > scale*minTickSpan) || hi-lo < minTickRange {
		hi = lo + math.Max(1, math.Abs(lo))
		if math.IsInf(hi, 0) { // lo is near the top of float64: widen downwards
			lo, hi = lo-math.Abs(lo)/2, lo
		}
	}
	raw := hi/5 - lo/5 // not (hi-lo)/5, which overflows for the widest ranges
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	// Ticks are whole multiples of step, counted as integers: at most
	// seven, since the range is at most five steps; the bounds are exact
	// integers, the range being wider than a billionth of its scale.
	first, last := math.Floor(lo/step), math.Ceil(hi/step)
	tick := func(k float64) float64 { return math.Max(-math.MaxFloat64, math.Min(math.MaxFloat64, k*step)) }
	for tick(first) > lo {
		first--
	}
	for tick(last) < hi {
		last++
	}
	ticks := make([]float64, 0, int(last-first)+1)
	for k := first; k <= last; k++ {
		ticks = append(ticks, tick(k))
	}
	return ticks
}

// The narrowest range niceTicks divides: a billionth of the values' own
// size (ticks closer than that read the same with the decimals fmtTick
// writes), and an absolute floor well above the subnormal numbers, whose
// fifth would lose its precision.
const (
	minTickSpan  = 1e-9
	minTickRange = 1e-290
)

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// along is how far v lies from lo towards hi, as a fraction (halves
// first, so that the widest axes do not overflow).
func along(v, lo, hi float64) float64 { return (v/2 - lo/2) / (hi/2 - lo/2) }

// cdf returns up to maxCDFPoints points of the empirical CDF of xs, in percent.
func cdf(xs []float64) [][2]float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	step := max(1, len(s)/maxCDFPoints)
	var pts [][2]float64
	for i := 0; i < len(s); i += step {
		pts = append(pts, [2]float64{s[i], 100 * float64(i+1) / float64(len(s))})
	}
	if last := s[len(s)-1]; pts[len(pts)-1][0] != last || pts[len(pts)-1][1] != 100 {
		pts = append(pts, [2]float64{last, 100})
	}
	return pts
}

// fmtTick formats an axis tick with as many decimals as the ticks' step
// needs and no more: 80 not 80.0, 5 not 5.00, 2.5 where the step is 0.5.
func fmtTick(v, step float64) string {
	decimals := 0
	for ; decimals < 6; decimals++ {
		scaled := step * math.Pow(10, float64(decimals))
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*math.Max(1, scaled) {
			break
		}
	}
	if r := math.Round(v*math.Pow(10, float64(decimals))) / math.Pow(10, float64(decimals)); finite(r) {
		v = r // not for the largest values, whose scaling overflows
	}
	if v == 0 {
		v = 0 // no "-0"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// box is a rectangle on the chart, in SVG units.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

func (a box) inside(b box) bool {
	return a.x0 >= b.x0 && a.x1 <= b.x1 && a.y0 >= b.y0 && a.y1 <= b.y1
}

// labelPlacer puts point labels where they overlap no label, no point and
// no curve and stay in the plot; a label with no free place is left out.
// Near a sweep's origin the points of both curves crowd together, and a
// label beside one point lay across the other curve.
type labelPlacer struct {
	bounds box
	taken  []box
	lines  []segment
}

// segment is a straight piece of a curve, in SVG units.
type segment struct{ x0, y0, x1, y1 float64 }

// crosses reports whether s passes through b (Liang-Barsky clipping).
func (s segment) crosses(b box) bool {
	dx, dy := s.x1-s.x0, s.y1-s.y0
	t0, t1 := 0.0, 1.0
	for _, e := range [][2]float64{{-dx, s.x0 - b.x0}, {dx, b.x1 - s.x0}, {-dy, s.y0 - b.y0}, {dy, b.y1 - s.y0}} {
		p, q := e[0], e[1]
		switch {
		case p == 0:
			if q < 0 {
				return false // parallel to this edge, outside it
			}
		case p < 0:
			t0 = math.Max(t0, q/p)
		default:
			t1 = math.Min(t1, q/p)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// Label sizes: 11 px text (the chart's font size) is at most about 7 px a
// character (a digit of DejaVu Sans, 0.636 em, the widest of the usual
// fonts').
const (
	labelHeight = 11
	labelGap    = 4
	charWidthPx = 7
)

func textWidth(s string) float64 { return charWidthPx * float64(len([]rune(s))) }

// place returns where the text of a label for the point at (px, py) goes
// (its baseline's left end), trying beside the point (right-above,
// right-below, left-above, left-below), then straight above, below, right
// and left of it, then the same twice as far.
func (l *labelPlacer) place(px, py float64, text string) (x, y float64, ok bool) {
	w := textWidth(text)
	for _, gap := range []float64{labelGap, 3 * labelGap} {
		for _, c := range [][2]float64{
			{px + gap, py - gap},               // right, above
			{px + gap, py + gap + labelHeight}, // right, below
			{px - gap - w, py - gap},           // left, above
			{px - gap - w, py + gap + labelHeight},
			{px - w/2, py - gap},               // above
			{px - w/2, py + gap + labelHeight}, // below
			{px + gap, py + labelHeight/2},     // right
			{px - gap - w, py + labelHeight/2}, // left
		} {
			b := box{c[0], c[1] - labelHeight, c[0] + w, c[1]}
			if !b.inside(l.bounds) || slices.ContainsFunc(l.taken, b.overlaps) || slices.ContainsFunc(l.lines, func(s segment) bool { return s.crosses(b) }) {
				continue
			}
			l.taken = append(l.taken, b)
			return c[0], c[1], true
		}
	}
	return 0, 0, false
}
