package load

import "sync"

// conversationWorkload runs multi-turn chat sessions of Turns turns: each
// turn resends the whole history so far (earlier questions and the answers
// the server actually gave) plus a new question of about InputTokens tokens.
// A session's next turn is sent only after its previous turn ended; sessions
// interleave, so any number of users can share them. A failed turn ends its
// session.
type conversationWorkload struct {
	w     Workload
	key   promptKey
	b     bodyMaker
	turns int

	lens lengths // calibrated for the first turn; later turns add words only

	mu       sync.Mutex
	ready    []*session // sessions waiting for their next turn
	sessions int        // sessions started
}

type session struct {
	id      int
	turn    int
	history []message
}

func newConversationWorkload(w Workload, key promptKey, b bodyMaker) (*conversationWorkload, error) {
	return &conversationWorkload{w: w, key: key, b: b, turns: max(w.Turns, 1)}, nil
}

func (cw *conversationWorkload) next(_ slot) *request {
	cw.mu.Lock()
	var s *session
	if n := len(cw.ready); n > 0 {
		s = cw.ready[0]
		cw.ready = cw.ready[1:]
	} else {
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
	req.turn = s.turn
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
			cw.ready = append(cw.ready, s)
			cw.mu.Unlock()
		}
	}
	return req
}

func (cw *conversationWorkload) calibration() *calibrationTarget {
	return &calibrationTarget{chat: true, lens: &cw.lens}
}
