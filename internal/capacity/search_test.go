package capacity

import (
	"math/rand/v2"
	"testing"
)

// run drives s against a probe function until it is done.
func run(t *testing.T, s *Search, probe func(float64) bool) (pass, fail float64, probes []float64) {
	t.Helper()
	for {
		load, done := s.Next()
		if done {
			break
		}
		if load < s.Min || load > s.Max {
			t.Fatalf("probe at %v outside [%v, %v]", load, s.Min, s.Max)
		}
		probes = append(probes, load)
		s.Record(load, probe(load), false)
	}
	pass, fail = s.Bracket()
	return pass, fail, probes
}

func TestSearchFindsAThreshold(t *testing.T) {
	for _, capacity := range []float64{1, 5, 17, 48, 63, 64} {
		s := &Search{Min: 1, Max: 64, Step: 1, Integer: true, Repeats: 2}
		pass, fail, probes := run(t, s, func(l float64) bool { return l <= capacity })
		// The answer is the capacity within the resolution: max(step, 10%).
		res := max(1, 0.1*pass)
		ok := pass <= capacity && capacity-pass <= res && (fail == 0) == (capacity == 64)
		if fail != 0 {
			ok = ok && fail > capacity && fail-pass <= res
		}
		if !ok {
			t.Errorf("capacity %v: bracket [%v, %v) wider than max(1, 10%%) or not around it; probes %v", capacity, pass, fail, probes)
		}
		// doubling (7) + bisection (<= 6) + repeats (2)
		if len(probes) > 16 {
			t.Errorf("capacity %v: %d probes %v, want at most 16", capacity, len(probes), probes)
		}
	}
}

// TestSearchConfidentEndsNotRepeated: ends of the bracket decided with
// confidence are probed once.
func TestSearchConfidentEndsNotRepeated(t *testing.T) {
	s := &Search{Min: 1, Max: 64, Step: 1, Integer: true, Repeats: 3}
	seen := map[float64]bool{}
	for {
		load, done := s.Next()
		if done {
			break
		}
		if seen[load] {
			t.Errorf("load %v probed twice", load)
		}
		seen[load] = true
		s.Record(load, load <= 20, true)
	}
	if pass, fail := s.Bracket(); pass != 20 || fail > 22 {
		t.Errorf("bracket [%v, %v), want [20, 22) or narrower", pass, fail)
	}
}

func TestSearchMinFails(t *testing.T) {
	s := &Search{Min: 4, Max: 64, Integer: true, Repeats: 2}
	pass, fail, probes := run(t, s, func(float64) bool { return false })
	if pass != 0 || fail != 4 || len(probes) != 2 {
		t.Errorf("bracket [%v, %v) after %v, want [0, 4) after two probes at the minimum", pass, fail, probes)
	}
}

func TestSearchRateResolution(t *testing.T) {
	s := &Search{Min: 0.5, Max: 100, Repeats: 1}
	pass, fail, _ := run(t, s, func(l float64) bool { return l < 13.3 })
	if !(pass < 13.3 && fail >= 13.3 && fail-pass <= 0.1*pass) {
		t.Errorf("bracket [%v, %v) does not hold 13.3 within 10%%", pass, fail)
	}
}

// TestSearchNoisyBoundary: near the true capacity a probe passes only
// sometimes; the answer must stay within a step or two of it, erring low,
// and the repeats must show up as noise.
func TestSearchNoisyBoundary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const truth = 40.0
	probe := func(l float64) bool {
		switch {
		case l <= truth-4:
			return true
		case l >= truth+4:
			return false
		}
		return rng.Float64() < (truth+4-l)/8
	}
	noisy := 0
	for range 200 {
		s := &Search{Min: 1, Max: 128, Step: 2, Integer: true, Repeats: 3}
		pass, fail, probes := run(t, s, probe)
		if pass < truth-6 || pass > truth+4 || fail <= pass || len(probes) > MaxProbes {
			t.Fatalf("bracket [%v, %v) after %v, want about %v", pass, fail, probes, truth)
		}
		noisy += s.Noisy()
	}
	if noisy == 0 {
		t.Error("200 noisy searches saw no disagreeing repeats")
	}
}
