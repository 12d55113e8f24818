package results

// Energy is what a run's GPUs drew over its measured phase.
type Energy struct {
	// Joules is the GPUs' total power integrated over the measured window.
	Joules float64 `json:"joules"`
	// PerToken is Joules per output token of the window's completed
	// requests; nil when none produced a token.
	PerToken *float64 `json:"per_token,omitempty"`
}

// GPUEnergy integrates the GPUs' total power of s over the measured
// window [0, windowS] seconds: linearly between samples, each end held at
// its nearest sample (a sampler reads every second or so, and the window
// starts and ends between readings). Samples with another GPU count than
// the first, or with a GPU that did not report power, are left out; false
// when none is left or the window is empty.
func GPUEnergy(s *GPUSeries, windowS float64) (float64, bool) {
	if s == nil || len(s.Samples) == 0 || !(windowS > 0) {
		return 0, false
	}
	count := len(s.Samples[0].GPUs)
	type point struct{ t, w float64 }
	var pts []point
	for _, smp := range s.Samples {
		if len(smp.GPUs) != count || count == 0 {
			continue
		}
		total, known := 0.0, true
		for _, r := range smp.GPUs {
			if r.PowerWatts == nil {
				known = false
				break
			}
			total += *r.PowerWatts
		}
		if known && (len(pts) == 0 || smp.T >= pts[len(pts)-1].t) {
			pts = append(pts, point{min(max(smp.T, 0), windowS), total})
		}
	}
	if len(pts) == 0 {
		return 0, false
	}
	joules := pts[0].t * pts[0].w // before the first reading
	for i := 1; i < len(pts); i++ {
		joules += (pts[i].t - pts[i-1].t) * (pts[i].w + pts[i-1].w) / 2
	}
	last := pts[len(pts)-1]
	joules += (windowS - last.t) * last.w // after the last
	return joules, true
}

// SetEnergy fills g's energy over a measured window of windowS seconds
// that produced outputTokens, from the series it summarizes.
func (g *GPUMetrics) SetEnergy(s *GPUSeries, windowS float64, outputTokens int64) {
	j, ok := GPUEnergy(s, windowS)
	if !ok {
		g.Energy = nil
		return
	}
	g.Energy = &Energy{Joules: j}
	if outputTokens > 0 {
		perToken := j / float64(outputTokens)
		g.Energy.PerToken = &perToken
	}
}
