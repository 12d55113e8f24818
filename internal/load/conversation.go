package load

import (
	"sync"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

// conversationWorkload runs multi-turn chat sessions of Turns turns: each
// turn resends the whole history so far (earlier questions and the answers
// the server actually gave) plus a new question of about InputTokens tokens.
// A session's next turn is sent only after its previous turn ended; sessions
// interleave, so any number of users can share them. A failed turn ends its
// session.
//
// With ThinkTime, a session's next turn is sent no sooner than ThinkTime
// after its previous turn ended. In a closed loop (wait) a user takes the
// session that has waited longest and holds its send until then, as a user
// reading the answer would; in an open loop arrivals keep their schedule,
// so an arrival continues a session whose think time has passed, or else
// starts a new one.
type conversationWorkload struct {
	w     runspec.Workload
	key   promptKey
	b     bodyMaker
	turns int
	think time.Duration
	wait  bool // closed loop: a user waits out a session's think time

	lens lengths // calibrated for the first turn; later turns add words only

	mu       sync.Mutex
	ready    []*session // sessions waiting for their next turn
	sessions int        // sessions started
}

type session struct {
	id      int
	turn    int
	history []message
	readyAt time.Time // earliest send of the next turn
}

func newConversationWorkload(w runspec.Workload, key promptKey, b bodyMaker, closedLoop bool) (*conversationWorkload, error) {
	return &conversationWorkload{w: w, key: key, b: b, turns: max(w.Turns, 1), think: max(w.ThinkTime, 0), wait: closedLoop}, nil
}

// take removes the session to continue from the ready list, or returns
// nil to start a new one. The list is in order of readyAt.
func (cw *conversationWorkload) take(now time.Time) *session {
	if len(cw.ready) == 0 {
		return nil
	}
	s := cw.ready[0]
	if !cw.wait && s.readyAt.After(now) {
		return nil
	}
	cw.ready = cw.ready[1:]
	return s
}

func (cw *conversationWorkload) next(_ slot) *request {
	cw.mu.Lock()
	s := cw.take(time.Now())
	if s == nil {
		s = &session{id: cw.sessions}
		cw.sessions++
	}
	cw.mu.Unlock()

	r := rng(cw.key, 5, uint64(s.id)<<16|uint64(s.turn)) // sessions are numbered across phases: all distinct
	in := length(r, cw.w.InputTokens, cw.w.RangeRatio)
	out := length(r, cw.w.OutputTokens, cw.w.RangeRatio)
	var q message
	if s.turn == 0 {
		q = message{Role: "user", Content: cw.lens.prompt(r, in)}
	} else {
		q = message{Role: "user", Content: cw.lens.text(r, in)}
	}
	msgs := append(append(make([]message, 0, len(s.history)+1), s.history...), q)
	req := cw.b.chat(msgs, out, nil)
	req.turn, req.session = s.turn, s.id
	if s.turn > 0 {
		req.notBefore = s.readyAt
	}
	if s.turn == 0 {
		req.wantIn = in // later turns resend the history: no length is asked
	}
	req.after = func(answer []byte, ok bool) {
		if !ok {
			return
		}
		s.history = append(s.history, q, message{Role: "assistant", Content: string(answer)})
		s.turn++
		if s.turn < cw.turns {
			cw.mu.Lock()
			s.readyAt = time.Now().Add(cw.think) // under the lock: ready stays in readyAt order
			cw.ready = append(cw.ready, s)
			cw.mu.Unlock()
		}
	}
	return req
}

func (cw *conversationWorkload) calibration() *calibrationTarget {
	return &calibrationTarget{chat: true, lens: &cw.lens}
}
