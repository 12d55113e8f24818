package load

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// TestRequestShapeReachesTheServer runs completions and chat against a
// loopback server that keeps what it receives, and checks that every
// request body holds the extra members beside llmgate's own fields and
// every request (calibration included) the headers.
func TestRequestShapeReachesTheServer(t *testing.T) {
	shape := runspec.Request{
		ExtraBody: []byte(`"chat_template_kwargs":{"enable_thinking":false},"temperature":0.7`),
		Headers: []runspec.Header{
			{Name: "x-tenant", Value: "team-a"},
			{Name: "X-Api-Key", Value: "k-0123456789", Secret: true},
		},
	}
	for _, chat := range []bool{false, true} {
		f := newFakeServer(t)
		cfg := Config{
			Load: runspec.Load{
				Concurrency: 2, Requests: 6, Seed: 1, Request: shape,
				Workload: runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 8, OutputTokens: 3, Chat: chat, TextPrompts: chat},
			},
			BaseURL: f.URL(), Model: "m",
		}
		sink := make(chan results.Record, 100)
		res, err := Run(context.Background(), cfg, sink)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			if !r.OK() {
				t.Fatalf("chat=%v: request failed: %s", chat, r.Error)
			}
		}
		bodies := f.seen()
		if len(bodies) < 6 {
			t.Fatalf("chat=%v: server saw %d requests, want 6 or more", chat, len(bodies))
		}
		for _, b := range bodies {
			if b["temperature"] != 0.7 {
				t.Errorf("chat=%v: temperature %v, want 0.7", chat, b["temperature"])
			}
			kw, _ := b["chat_template_kwargs"].(map[string]any)
			if v, ok := kw["enable_thinking"]; !ok || v != false {
				t.Errorf("chat=%v: chat_template_kwargs %v, want enable_thinking false", chat, b["chat_template_kwargs"])
			}
			// llmgate's own fields are still there
			if b["model"] != "m" || b["stream"] != true || b["max_tokens"] != 3.0 {
				t.Errorf("chat=%v: body lost llmgate's fields: %v", chat, b)
			}
			if _, ok := b["stream_options"].(map[string]any)["include_usage"]; !ok {
				t.Errorf("chat=%v: body lost stream_options: %v", chat, b)
			}
		}
		f.mu.Lock()
		hs := f.headers
		f.mu.Unlock()
		calibration := 0
		for _, h := range hs {
			if h.Get(CalibrationHeader) != "" {
				calibration++
			}
			if got := h.Values("X-Tenant"); len(got) != 1 || got[0] != "team-a" {
				t.Errorf("chat=%v: X-Tenant %q, want [team-a]", chat, got)
			}
			if got := h.Get("X-Api-Key"); got != "k-0123456789" {
				t.Errorf("chat=%v: X-Api-Key %q", chat, got)
			}
			if h.Get("Content-Type") != "application/json" || h.Get("Accept") != "text/event-stream" {
				t.Errorf("chat=%v: llmgate's headers lost: %v", chat, h)
			}
		}
		if chat && calibration == 0 {
			t.Errorf("chat=%v: no calibration request seen; the headers on one are unchecked", chat)
		}
	}
}

// TestSpliceMembers checks the body splice on an empty and a full object.
func TestSpliceMembers(t *testing.T) {
	for _, c := range []struct{ obj, members, want string }{
		{`{}`, `"a":1`, `{"a":1}`},
		{`{"model":"m"}`, `"a":1,"b":{"c":[2]}`, `{"model":"m","a":1,"b":{"c":[2]}}`},
		{`{"model":"m"}`, ``, `{"model":"m"}`},
	} {
		got := string(spliceMembers([]byte(c.obj), []byte(c.members)))
		if got != c.want || !json.Valid([]byte(got)) {
			t.Errorf("spliceMembers(%s, %s) = %s, want %s", c.obj, c.members, got, c.want)
		}
	}
}

// TestRecordMasksSecretHeaders checks the results file's record of the
// request shape: the extra body as one object, header names, and secret
// header values masked, never as sent.
func TestRecordMasksSecretHeaders(t *testing.T) {
	l := runspec.Load{Request: runspec.Request{
		ExtraBody: []byte(`"temperature":0.7`),
		Headers: []runspec.Header{
			{Name: "X-Tenant", Value: "team-a"},
			{Name: "Authorization", Value: "Bearer abc", Secret: true}, // shorter than a masker hides
		},
	}}
	lc := Recorded(l, nil)
	raw, err := json.Marshal(lc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "abc") {
		t.Errorf("record holds the secret: %s", raw)
	}
	want := `"request":{"extra_body":"{\"temperature\":0.7}","headers":[{"name":"X-Tenant","value":"team-a"},{"name":"Authorization","value":"` + untrusted.Masked + `"}]}`
	if !strings.Contains(string(raw), want) {
		t.Errorf("record %s lacks %s", raw, want)
	}
	if Recorded(runspec.Load{}, nil).Request != nil {
		t.Error("a load without a request block records one")
	}
}

// BenchmarkRequestBody is the cost of one request's body with and without
// an extra body: the splice is a copy, not an encoding.
func BenchmarkRequestBody(b *testing.B) {
	ids := make([]int, 1024)
	for i := range ids {
		ids[i] = tokenLow + i
	}
	for _, c := range []struct {
		name  string
		extra []byte
	}{
		{"plain", nil},
		{"extra_body", []byte(`"chat_template_kwargs":{"enable_thinking":false},"temperature":0.7,"top_p":0.9`)},
	} {
		m := bodyMaker{model: "m", ignoreEOS: true, extra: c.extra}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.completion(ids, 128)
			}
		})
	}
}

// TestAuthorizationTwiceRefused checks that a request block's
// Authorization and an API key given elsewhere (--api-key) are not both
// sent: the run is refused before any request.
func TestAuthorizationTwiceRefused(t *testing.T) {
	f := newFakeServer(t)
	cfg := Config{
		Load: runspec.Load{Concurrency: 1, Requests: 1, Workload: runspec.Workload{OutputTokens: 1},
			Request: runspec.Request{Headers: []runspec.Header{{Name: "authorization", Value: "Bearer abcdefgh", Secret: true}}}},
		BaseURL: f.URL(), Model: "m", APIKey: "sk-0123456789",
	}
	_, err := Run(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "Authorization") {
		t.Fatalf("err = %v, want the Authorization refusal", err)
	}
	f.mu.Lock()
	n := len(f.headers)
	f.mu.Unlock()
	if n != 0 {
		t.Errorf("server saw %d requests", n)
	}
}
