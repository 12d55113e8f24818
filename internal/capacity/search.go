package capacity

import (
	"math"
	"sort"
)

// MaxProbes bounds the probes of one search; a search that would need
// more (a very noisy SLO) ends with the bracket it has.
const MaxProbes = 40

// Search is the state of one capacity search over loads in [Min, Max].
type Search struct {
	// Min and Max bound the loads tried.
	Min, Max float64
	// Step is the absolute resolution: the search stops once the bracket
	// [pass, fail) is at most max(Step, Relative × pass) wide.
	Step float64
	// Relative is the relative resolution, 0.1 unless set.
	Relative float64
	// Integer makes every load a whole number (concurrency).
	Integer bool
	// Repeats is how many probes each end of the final bracket needs.
	Repeats int

	outcomes  map[float64][]bool
	confident map[float64]bool
	probes    int
}

// Record adds the outcome of one probe at load. confident says the probe
// was decided with confidence before its end (see Decide): such a load is
// not repeated, while one whose probe ran to the end, near the SLO, is.
func (s *Search) Record(load float64, passed, confident bool) {
	if s.outcomes == nil {
		s.outcomes = map[float64][]bool{}
		s.confident = map[float64]bool{}
	}
	s.outcomes[load] = append(s.outcomes[load], passed)
	if confident && len(s.outcomes[load]) == 1 {
		s.confident[load] = true
	}
	s.probes++
}

// needsRepeat reports whether load, an end of the bracket, needs another probe.
func (s *Search) needsRepeat(load float64) bool {
	return !s.confident[load] && s.count(load) < max(s.Repeats, 1)
}

// passes decides a load by the majority of its probes; a tie fails (the
// answer errs low, never promising a load that failed half the time).
func (s *Search) passes(load float64) bool {
	n, ok := 0, 0
	for _, p := range s.outcomes[load] {
		n++
		if p {
			ok++
		}
	}
	return 2*ok > n
}

// Bracket returns the largest load that passed below the smallest that
// failed (0 when none passed) and that failed load (0 when none failed).
func (s *Search) Bracket() (pass, fail float64) {
	loads := make([]float64, 0, len(s.outcomes))
	for l := range s.outcomes {
		loads = append(loads, l)
	}
	sort.Float64s(loads)
	for _, l := range loads {
		if !s.passes(l) {
			fail = l
			break
		}
	}
	for _, l := range loads {
		if fail > 0 && l >= fail {
			break
		}
		if s.passes(l) {
			pass = l
		}
	}
	return pass, fail
}

// Noisy counts loads whose probes disagreed.
func (s *Search) Noisy() int {
	n := 0
	for _, o := range s.outcomes {
		for _, p := range o[1:] {
			if p != o[0] {
				n++
				break
			}
		}
	}
	return n
}

func (s *Search) count(load float64) int { return len(s.outcomes[load]) }

func (s *Search) narrow(pass, fail float64) bool {
	rel := s.Relative
	if rel == 0 {
		rel = 0.1
	}
	w := fail - pass
	if s.Integer && w <= 1 {
		return true
	}
	return w <= max(s.Step, rel*pass)
}

func (s *Search) round(v float64) float64 {
	if s.Integer {
		return math.Floor(v)
	}
	return v
}

// Next returns the load to probe next, and done when the search has its
// answer (see Bracket).
func (s *Search) Next() (load float64, done bool) {
	if s.probes >= MaxProbes {
		return 0, true
	}
	reps := max(s.Repeats, 1)
	pass, fail := s.Bracket()
	switch {
	case s.count(s.Min) == 0:
		return s.Min, false
	case pass == 0:
		// Even the minimum failed: confirm it, then give up.
		if s.count(s.Min) < reps {
			return s.Min, false
		}
		return 0, true
	case fail == 0 && pass >= s.Max:
		// The maximum passed: the capacity is at least Max.
		if s.count(s.Max) < reps {
			return s.Max, false
		}
		return 0, true
	case fail == 0:
		return min(s.round(2*pass), s.Max), false
	case s.narrow(pass, fail):
		if s.needsRepeat(pass) {
			return pass, false
		}
		if s.needsRepeat(fail) {
			return fail, false
		}
		return 0, true
	}
	mid := s.round((pass + fail) / 2)
	if mid <= pass || mid >= fail {
		return 0, true // cannot happen while not narrow; stop rather than loop
	}
	return mid, false
}
