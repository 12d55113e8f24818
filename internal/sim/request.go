package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// request is one generation request as the engine sees it. The HTTP handler
// creates it, the engine goroutine owns its scheduling fields, and the two
// share the generated tokens under mu.
type request struct {
	promptLen  int
	maxTokens  int // output cap (already clamped to max-model-len)
	minTokens  int
	stopAt     int       // natural output length (EOS) when it stops on its own
	structured []int     // the whole answer, fixed up front, for structured output
	reasoning  int       // the first output tokens that are reasoning (chat, --reasoning-tokens)
	tool       *toolCall // the call the answer (structured: its arguments) makes; nil for text
	seedKey    uint64
	salt       uint64 // parent hash of the first block (cache_salt)
	arrival    time.Time

	// Engine-owned.
	computed   int      // tokens whose KV is in the cache
	numNew     int      // tokens computed in the current step
	draft      int      // of them, draft tokens to verify (speculative decoding)
	blocks     []int32  // block table
	hashes     []uint64 // hashes of the full blocks of tokens
	committed  int      // blocks registered in the prefix cache
	cachedHits int      // prompt tokens served from the prefix cache (first schedule)
	scheduled  bool     // has been scheduled at least once
	// scheduledAt is when it was first scheduled, firstToken when its
	// first token was sampled (zero before): vLLM's request intervals
	scheduledAt, firstToken time.Time
	lastToken               time.Time
	running                 bool
	finished                bool

	// Shared with the handler under mu. tokens = prompt then output; the
	// engine appends, the handler reads tokens[:n] for n it saw under mu.
	mu     sync.Mutex
	tokens []int
	done   bool
	reason string // finish_reason once done
	err    error  // set instead of reason when the engine aborted it

	notify    chan struct{} // cap 1: "something new"
	cancelled atomic.Bool   // the client went away
}

func newRequest(prompt []int, maxTokens int) *request {
	toks := make([]int, len(prompt), len(prompt)+min(maxTokens, 4096))
	copy(toks, prompt)
	return &request{promptLen: len(prompt), maxTokens: maxTokens, tokens: toks, notify: make(chan struct{}, 1)}
}

// signal wakes the handler without blocking the engine.
func (r *request) signal() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// snapshot returns the tokens produced so far and whether the request ended.
func (r *request) snapshot() (toks []int, done bool, reason string, err error) {
	r.mu.Lock()
	toks, done, reason, err = r.tokens, r.done, r.reason, r.err
	r.mu.Unlock()
	return toks, done, reason, err
}

// computeHashes fills the prompt's full-block hashes (called by the handler,
// off the engine goroutine).
func (r *request) computeHashes(blockSize int, salt uint64) {
	n := r.promptLen / blockSize
	r.hashes = make([]uint64, 0, n+r.maxTokens/blockSize+1)
	r.salt = salt
	parent := salt
	for b := 0; b < n; b++ {
		parent = blockHash(parent, r.tokens[b*blockSize:(b+1)*blockSize])
		r.hashes = append(r.hashes, parent)
	}
}
