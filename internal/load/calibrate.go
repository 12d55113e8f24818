package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/llmgate/llmgate/results"
)

// lengths makes text prompts of a given number of tokens on the server
// under test. With a cost table (from /tokenize: the tokens each word of
// words takes after a space) it picks words until their costs add up to
// the count exactly; without one it takes perWord tokens a word (from a
// fit of usage counts); its zero value is one word per token. overhead is
// what the prompt's frame adds (chat template, instructions, BOS).
type lengths struct {
	cost     []int
	cheapest int // index of the cheapest word
	perWord  float64
	overhead float64
}

// prompt returns the words of a whole prompt of n tokens, frame included.
func (l *lengths) prompt(r *rand.Rand, n int) string {
	return l.text(r, max(int(math.Round(float64(n)-l.overhead)), 1))
}

// text returns words that make n tokens inside a prompt (a shared prefix,
// a later turn).
func (l *lengths) text(r *rand.Rand, n int) string {
	if l.cost == nil {
		w := n
		if l.perWord > 0 {
			w = max(int(math.Round(float64(n)/l.perWord)), 1)
		}
		return text(r, w)
	}
	var sb strings.Builder
	sb.Grow(n * 5)
	for tokens := 0; tokens < n; {
		i := r.IntN(len(words))
		if tokens+l.cost[i] > n {
			if i = l.cheapest; tokens+l.cost[i] > n {
				break
			}
		}
		sb.WriteByte(' ')
		sb.WriteString(words[i])
		tokens += l.cost[i]
	}
	return sb.String()
}

// calibrationTarget is what a workload that sends text needs measured.
type calibrationTarget struct {
	chat  bool                  // a chat message (the template counts) or a completion prompt
	frame func(x string) string // wraps the words into the prompt; nil: as they are
	lens  *lengths              // set by the calibration
	done  func()                // called once lens is set; may be nil
}

// A calibrated workload sends text prompts whose length depends on the
// server's tokenizer; calibration returns nil when it sends token ids.
type calibrated interface {
	calibration() *calibrationTarget
}

// A textSwitcher can send text instead of token ids to /v1/completions;
// useText switches and reports whether it did.
type textSwitcher interface {
	useText() bool
}

// calibrate prepares wl's prompt lengths against the server before the
// run: a workload of token ids is probed once and switched to text when
// the server refuses token ids with a 400; a workload of text has two texts
// of known word counts measured, by the server's /tokenize when it has one,
// else by the usage of a one-token request, and sizes its prompts from the
// fit. Calibration requests are not records and share no prompt with the
// run.
func calibrate(ctx context.Context, cfg Config, cl *client, wl workload) results.Calibration {
	var cal results.Calibration
	c, ok := wl.(calibrated)
	if !ok {
		return results.Calibration{Method: results.NotCalibrated, Note: "the workload's prompts are not generated (dataset)"}
	}
	t := c.calibration()
	if t == nil {
		sw, _ := wl.(textSwitcher)
		refused := cfg.Server.TokenIDsRefused // known from the server's probe
		if refused == "" {
			refused = probeTokenIDs(ctx, cfg, cl)
		}
		if refused == "" || sw == nil || !sw.useText() {
			return results.Calibration{Method: results.CalibratedTokenIDs}
		}
		cal.TextFallback = refused
		if t = c.calibration(); t == nil {
			return results.Calibration{Method: results.NotCalibrated, TextFallback: refused, Note: "the workload cannot send text"}
		}
	}
	if err := t.lens.measure(ctx, cfg, cl, t, &cal); err != nil {
		cal.Method, cal.Note = results.NotCalibrated, "prompt lengths not calibrated: "+err.Error()
		*t.lens = lengths{}
	}
	if t.done != nil {
		t.done()
	}
	return cal
}

// measure fills l for target t: a cost table and the frame's overhead from
// /tokenize when the server has it (and its probe did not find it
// missing), else a fit of prompt tokens against words from the usage of
// one-token requests.
func (l *lengths) measure(ctx context.Context, cfg Config, cl *client, t *calibrationTarget, cal *results.Calibration) error {
	frame := func(x string) string {
		if t.frame != nil {
			return t.frame(x)
		}
		return x
	}
	if cost, err := wordCosts(ctx, cfg); err == nil {
		l.cost, l.cheapest = cost, 0
		for i := range cost {
			if l.cost[i] < l.cost[l.cheapest] {
				l.cheapest = i
			}
		}
		x := l.text(rng(promptKey{seed: cfg.Seed, salt: 0xca1}, 7, 0), 256)
		n, err := tokenize(ctx, cfg, t.chat, frame(x))
		if err != nil {
			return err
		}
		l.overhead = float64(n - 256)
		var sum int
		for _, c := range l.cost {
			sum += c
		}
		cal.Method, cal.TokensPerWord, cal.OverheadTokens = results.CalibratedTokenize, float64(sum)/float64(len(l.cost)), l.overhead
		return nil
	}
	// no /tokenize: fit tokens = overhead + perWord × words over texts of
	// one and two whole passes through the words (see text), which hold
	// each word equally often, so the fit has the words' exact mean cost
	// rather than a sample's; two passes are about 340 tokens on a common
	// tokenizer, small enough for short context windows
	var sw, st, sww, swt float64
	sizes := []int{len(words), 2 * len(words)}
	for i, w := range sizes {
		x := text(rng(promptKey{seed: cfg.Seed, salt: 0xca1}, 7, uint64(i)), w)
		n, err := usageTokens(ctx, cfg, cl, t.chat, frame(x))
		if err != nil {
			return err
		}
		fw, fn := float64(w), float64(n)
		sw, st, sww, swt = sw+fw, st+fn, sww+fw*fw, swt+fw*fn
	}
	k := float64(len(sizes))
	perWord := (k*swt - sw*st) / (k*sww - sw*sw)
	if !(perWord > 0) {
		return fmt.Errorf("prompts of %v words gave no growing token count", sizes)
	}
	l.perWord, l.overhead = perWord, (st-perWord*sw)/k
	cal.Method, cal.TokensPerWord, cal.OverheadTokens = results.CalibratedUsage, perWord, l.overhead
	return nil
}

// errNoTokenize says the server's probe found no /tokenize.
var errNoTokenize = errors.New("the server has no /tokenize")

// costCache keeps each server's word costs (by base URL and model): a
// sweep's runs on one server ask /tokenize about the words once.
var costCache sync.Map // string -> []int

// wordCosts returns the tokens each word of words takes after a space on
// the server, from its /tokenize (one call per word, once per server);
// none is asked of a server whose probe found no /tokenize.
func wordCosts(ctx context.Context, cfg Config) ([]int, error) {
	if cfg.Server.NoTokenize {
		return nil, errNoTokenize
	}
	key := trimSlash(cfg.BaseURL) + "\x00" + cfg.Model
	if c, ok := costCache.Load(key); ok {
		return c.([]int), nil
	}
	base, err := tokenize(ctx, cfg, false, "")
	if err != nil {
		return nil, err
	}
	cost := make([]int, len(words))
	for i, w := range words {
		n, err := tokenize(ctx, cfg, false, " "+w)
		if err != nil {
			return nil, err
		}
		cost[i] = max(n-base, 1)
	}
	costCache.Store(key, cost)
	return cost, nil
}

// probeTokenIDs sends one token-id completion of one token and returns the
// server's answer when it refused the prompt with 400, else "".
func probeTokenIDs(ctx context.Context, cfg Config, cl *client) string {
	b := bodyMaker{model: cfg.Model, extra: cfg.Request.ExtraBody}
	ids := tokenIDs(rng(promptKey{seed: cfg.Seed, salt: 0xca1}, 8, 0), 8)
	var rec results.Record
	req := b.completion(ids, 1)
	req.calibration = true
	cl.do(ctx, req, time.Now(), &rec)
	if rec.ErrorKind == results.ErrorHTTP && rec.HTTPStatus == http.StatusBadRequest {
		return rec.Error
	}
	return ""
}

// usageTokens returns how many prompt tokens x makes on the server as a
// chat message or a completion prompt, from the usage of a one-token
// request.
func usageTokens(ctx context.Context, cfg Config, cl *client, chat bool, x string) (int, error) {
	b := bodyMaker{model: cfg.Model, extra: cfg.Request.ExtraBody}
	req := b.completion(x, 1)
	if chat {
		req = b.chat([]message{{Role: "user", Content: x}}, 1, nil)
	}
	req.calibration = true
	var rec results.Record
	cl.do(ctx, req, time.Now(), &rec)
	switch {
	case !rec.OK():
		return 0, fmt.Errorf("no /tokenize, and a calibration request failed: %s", rec.Error)
	case rec.InputTokens <= 0:
		return 0, fmt.Errorf("no /tokenize, and a calibration request reported no prompt tokens")
	}
	return rec.InputTokens, nil
}

// tokenizeTimeout bounds one /tokenize call.
const tokenizeTimeout = 30 * time.Second

// tokenize asks the server's POST /tokenize (vLLM's and the simulator's)
// how many tokens x makes; the chat template is applied for chat.
func tokenize(ctx context.Context, cfg Config, chat bool, x string) (int, error) {
	body := map[string]any{"model": cfg.Model}
	if chat {
		body["messages"] = []message{{Role: "user", Content: x}}
	} else {
		body["prompt"] = x
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, tokenizeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, trimSlash(cfg.BaseURL)+"/tokenize", bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	for _, h := range cfg.Request.Headers {
		req.Header[h.Name] = append(req.Header[h.Name], h.Value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("POST /tokenize: http %d", resp.StatusCode)
	}
	var out struct {
		Count *int `json:"count"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&out); err != nil || out.Count == nil {
		return 0, fmt.Errorf("POST /tokenize: no count in the answer")
	}
	return *out.Count, nil
}
