package results

import "strconv"

// Slice summarises the measured requests of one part of a run: the first
// or the later turns of its conversations, or one bucket of input lengths.
// Its statistics cover the slice's completed requests, as Summary's do: an
// empty answer has an E2EL but no TTFT.
type Slice struct {
	// Label names the slice for people: "turn 1", "turns 2+", "512–2048 tok".
	Label string `json:"label" text:"line"`
	// Name names an input-length bucket in metric names: "long" in
	// length_bucket.long.ttft.p95. Empty for the turns' slices.
	Name string `json:"name,omitempty" text:"name"`
	// MinInputTokens and MaxInputTokens bound an input-length bucket: from
	// MinInputTokens up to, not including, MaxInputTokens; 0 for no bound.
	MinInputTokens int `json:"min_input_tokens,omitempty"`
	MaxInputTokens int `json:"max_input_tokens,omitempty"`
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

// add adds request i of l, which failed or was an empty answer (no TTFT,
// as in the run's summary) as the sets say.
func (s *sliceSums) add(l *RequestLog, i int, failed, empty map[int]bool) {
	if failed[i] {
		s.req.Failed++
		return
	}
	s.req.Completed++
	s.in += int64(l.InputTokens[i])
	s.e2el = append(s.e2el, float64(l.E2ELUS[i])/1000)
	if empty[i] {
		s.req.EmptyAnswers++
		return
	}
	s.ttft = append(s.ttft, float64(l.TTFTUS[i])/1000)
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
	failed, empty := l.failedSet(), indexSet(l.EmptyAnswers)
	var first, later sliceSums
	for i := range l.Len() {
		if i < len(l.Turn) && l.Turn[i] > 0 {
			later.add(l, i, failed, empty)
		} else {
			first.add(l, i, failed, empty)
		}
	}
	return &Turns{First: first.slice("turn 1"), Later: later.slice("turns 2+")}
}

// LengthBuckets splits l's requests by input length (server usage) at
// edges, increasing token counts: len(edges)+1 buckets, from below the
// first edge to the last edge and above, named by names (one a bucket;
// DefaultBucketNames when names does not fit). A failed request whose
// input length the server never reported is in no bucket. Nil without
// edges.
func (l *RequestLog) LengthBuckets(edges []int, names []string) []Slice {
	if l == nil || len(edges) == 0 {
		return nil
	}
	if len(names) != len(edges)+1 {
		names = DefaultBucketNames(edges)
	}
	failed, empty := l.failedSet(), indexSet(l.EmptyAnswers)
	sums := make([]sliceSums, len(edges)+1)
	for i := range l.Len() {
		n := l.InputTokens[i]
		if n == 0 && failed[i] {
			continue
		}
		b := 0
		for b < len(edges) && n >= edges[b] {
			b++
		}
		sums[b].add(l, i, failed, empty)
	}
	out := make([]Slice, len(sums))
	for b := range sums {
		lo, hi := 0, 0
		if b > 0 {
			lo = edges[b-1]
		}
		if b < len(edges) {
			hi = edges[b]
		}
		out[b] = sums[b].slice(bucketLabel(lo, hi))
		out[b].Name = names[b]
		out[b].MinInputTokens, out[b].MaxInputTokens = lo, hi
	}
	return out
}

// bucketLabel names the input lengths [lo, hi) in tokens, 0 for no bound.
func bucketLabel(lo, hi int) string {
	switch {
	case lo == 0:
		return "< " + strconv.Itoa(hi) + " tok"
	case hi == 0:
		return "≥ " + strconv.Itoa(lo) + " tok"
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi) + " tok"
}
