package results

// Slice summarises the measured requests of one part of a run: the first
// or the later turns of its conversations, or one bucket of input lengths.
// Its statistics cover the slice's completed requests, as Summary's do.
type Slice struct {
	// Label names the slice for people: "turn 1", "turns 2+", "512–2048".
	Label string `json:"label"`
	// Requests counts the slice's completed and failed requests.
	Requests Requests `json:"requests"`
	// InputTokensMean is the mean input length (server usage) of the
	// slice's completed requests.
	InputTokensMean float64 `json:"input_tokens_mean"`
	TTFT            Stats   `json:"ttft"`
	E2EL            Stats   `json:"e2el"`
}

// Turns compares a conversation run's first turns with its later ones,
// which resend the history and so can hit the server's prefix cache.
type Turns struct {
	First Slice `json:"first"`
	Later Slice `json:"later"`
}

// sliceSums gathers the requests of one Slice.
type sliceSums struct {
	req        Requests
	in         int64
	ttft, e2el []float64
}

// add adds request i of l.
func (s *sliceSums) add(l *RequestLog, i int, failed bool) {
	if failed {
		s.req.Failed++
		return
	}
	s.req.Completed++
	s.in += int64(l.InputTokens[i])
	s.ttft = append(s.ttft, float64(l.TTFTUS[i])/1000)
	s.e2el = append(s.e2el, float64(l.E2ELUS[i])/1000)
}

func (s *sliceSums) slice(label string) Slice {
	out := Slice{Label: label, Requests: s.req, TTFT: ComputeStats(s.ttft), E2EL: ComputeStats(s.e2el)}
	if s.req.Completed > 0 {
		out.InputTokensMean = float64(s.in) / float64(s.req.Completed)
	}
	return out
}

// failedSet returns the indexes of l's failed requests.
func (l *RequestLog) failedSet() map[int]bool {
	failed := make(map[int]bool, len(l.Failures))
	for _, f := range l.Failures {
		failed[f.Index] = true
	}
	return failed
}

// Turns splits l's requests into first and later conversation turns; nil
// when no request was past its first turn (no conversations).
func (l *RequestLog) Turns() *Turns {
	if l == nil || l.Turn == nil {
		return nil
	}
	failed := l.failedSet()
	var first, later sliceSums
	for i := range l.Len() {
		if i < len(l.Turn) && l.Turn[i] > 0 {
			later.add(l, i, failed[i])
		} else {
			first.add(l, i, failed[i])
		}
	}
	return &Turns{First: first.slice("turn 1"), Later: later.slice("turns 2+")}
}
