package trace

import (
	"hash/maphash"
	"time"
)

// Summary describes a set of a trace's rows, as validate --plan prints it.
type Summary struct {
	// Requests counts the rows.
	Requests int
	// Span is from the first arrival to the last, as the trace has it
	// (not scaled).
	Span time.Duration
	// MeanInput and MeanOutput are the mean prompt and answer lengths,
	// tokens.
	MeanInput, MeanOutput float64
	// InputTokens is every prompt's tokens together.
	InputTokens int64
	// Shared is the share of prompt tokens that are in blocks whose hash
	// id another of the rows also has: content the rows share.
	Shared float64
	// Reusable is the share of prompt tokens in blocks whose ids, the
	// block's and every one before it in the prompt, an earlier row began
	// with too: what a prefix cache without evictions could serve.
	Reusable float64
	// Texts counts the rows that carry their own prompt; Estimated those
	// of them whose length is estimated at a token per 4 bytes.
	Texts, Estimated int
}

// blockTokens is how many of the prompt's tokens its block i holds, for
// a prompt of n tokens in blocks of size: size for the full blocks, what
// is left for the last, 0 past the prompt's end.
func blockTokens(i, n, size int) int {
	return max(0, min(size, n-i*size))
}

// Summarize describes rows, whose hash ids stand for blocks of blockSize
// tokens (DefaultBlockSize when 0).
func Summarize(rows []Row, blockSize int) Summary {
	if blockSize <= 0 {
		blockSize = DefaultBlockSize
	}
	s := Summary{Requests: len(rows)}
	if len(rows) == 0 {
		return s
	}
	first, last := rows[0].At, rows[0].At
	users := map[int64]int{} // hash id -> rows that have it
	mine := map[int64]bool{} // the ids of the row at hand
	var out int64
	for i := range rows {
		r := &rows[i]
		first, last = min(first, r.At), max(last, r.At)
		s.InputTokens += int64(r.Input)
		out += int64(r.Output)
		if r.HasText() {
			s.Texts++
		}
		if r.Estimated {
			s.Estimated++
		}
		clear(mine)
		for j, h := range r.Hashes {
			if blockTokens(j, r.Input, blockSize) == 0 {
				break
			}
			if !mine[h] {
				mine[h] = true
				users[h]++
			}
		}
	}
	s.Span = last - first
	s.MeanInput = float64(s.InputTokens) / float64(len(rows))
	s.MeanOutput = float64(out) / float64(len(rows))
	var shared, reusable int64
	seed := maphash.MakeSeed()
	prefixes := map[uint64]bool{}
	for i := range rows {
		r := &rows[i]
		var h maphash.Hash
		h.SetSeed(seed)
		chain := true // every block so far was reusable
		for j, id := range r.Hashes {
			n := blockTokens(j, r.Input, blockSize)
			if n == 0 {
				break
			}
			if users[id] > 1 {
				shared += int64(n)
			}
			var b [8]byte
			for k := range b {
				b[k] = byte(uint64(id) >> (8 * k))
			}
			h.Write(b[:])
			key := h.Sum64()
			if chain && prefixes[key] {
				reusable += int64(n)
			} else {
				chain = false
			}
			prefixes[key] = true
		}
	}
	if s.InputTokens > 0 {
		s.Shared = float64(shared) / float64(s.InputTokens)
		s.Reusable = float64(reusable) / float64(s.InputTokens)
	}
	return s
}
