package fakeserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends body to path and returns the response.
func post(t *testing.T, s *Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads a stream's data events, [DONE] excluded.
func events(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("event %q: %v", d, err)
		}
		out = append(out, m)
	}
	return out
}

func TestOllamaQuirks(t *testing.T) {
	s := Start(t, Ollama("tiny", 5))
	// the tag may be left out; the listed name is "tiny:latest"
	resp := post(t, s, PathCompletions, `{"model":"tiny","prompt":"a b c","max_tokens":12,"ignore_eos":true,"min_tokens":12,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs := events(t, resp.Body)
	content := 0
	for _, e := range evs {
		u, _ := e["usage"].(map[string]any)
		if len(e["choices"].([]any)) > 0 {
			content++
			if u == nil || u["completion_tokens"].(float64) != 0 {
				t.Errorf("content chunk usage %v, want zeros", u)
			}
		} else if u["completion_tokens"].(float64) != 5 || u["prompt_tokens"].(float64) != 3 {
			t.Errorf("final usage %v, want 5 completion and 3 prompt tokens", u)
		}
	}
	if content != 5 {
		t.Errorf("%d content chunks, want 5: ignore_eos and min_tokens are ignored", content)
	}
	if r := post(t, s, PathCompletions, `{"model":"tiny","prompt":[1,2,3],"max_tokens":2}`); r.StatusCode != 400 {
		t.Errorf("token ids: status %d, want 400", r.StatusCode)
	}
	for _, p := range []string{PathMetrics, PathVersion, PathHealth} {
		r, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
		}
	}
	if r := post(t, s, PathTokenize, `{"prompt":"x"}`); r.StatusCode != 404 {
		t.Errorf("tokenize: %d, want 404", r.StatusCode)
	}
	if s.Hits(PathMetrics) != 1 || s.Hits(PathCompletions) != 2 {
		t.Errorf("hits: metrics %d, completions %d", s.Hits(PathMetrics), s.Hits(PathCompletions))
	}
}

func TestRoleChunks(t *testing.T) {
	for _, tc := range []struct {
		role      RoleChunk
		wantFirst string // "role" or "content"
		chunks    int
	}{{RoleWithFirstToken, "role", 4}, {RoleEarly, "role", 4}, {RoleInFirstToken, "content", 3}} {
		s := Start(t, Config{RoleChunk: tc.role})
		evs := events(t, post(t, s, PathChat, `{"model":"fake-model","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"stream":true}`).Body)
		if len(evs) != tc.chunks {
			t.Errorf("role %d: %d chunks, want %d", tc.role, len(evs), tc.chunks)
			continue
		}
		d := evs[0]["choices"].([]any)[0].(map[string]any)["delta"].(map[string]any)
		got := "content"
		if d["content"] == "" {
			got = "role"
		}
		if got != tc.wantFirst || d["role"] != "assistant" {
			t.Errorf("role %d: first delta %v", tc.role, d)
		}
	}
}

// TestTiming checks the schedule: the first content chunk TTFT after the
// request, each next one ITL later. Lower bounds only: a loaded machine
// may deliver late, never early.
func TestTiming(t *testing.T) {
	s := Start(t, Config{TTFT: 30 * time.Millisecond, ITL: 10 * time.Millisecond})
	t0 := time.Now()
	resp := post(t, s, PathCompletions, `{"model":"fake-model","prompt":"a","max_tokens":4,"stream":true}`)
	rd := bufio.NewReader(resp.Body)
	var at []time.Duration
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		if strings.HasPrefix(line, "data: {") {
			at = append(at, time.Since(t0))
		}
	}
	if len(at) != 4 {
		t.Fatalf("%d chunks, want 4", len(at))
	}
	for k, d := range at {
		if want := 30*time.Millisecond + time.Duration(k)*10*time.Millisecond; d < want {
			t.Errorf("chunk %d after %v, before its time %v", k, d, want)
		}
	}
}

func TestContextAndTemplate(t *testing.T) {
	c := VLLM("m", 64)
	c.TemplatePrefix, c.TemplateSuffix = 27, 4
	s := Start(t, c)
	if r := post(t, s, PathCompletions, `{"model":"m","prompt":"`+strings.Repeat("w ", 50)+`"}`); r.StatusCode != 400 {
		t.Errorf("50 tokens + the default 16 in a context of 64: %d, want 400", r.StatusCode)
	}
	var a, b struct{ Tokens []int }
	for _, x := range []struct {
		msg string
		out *struct{ Tokens []int }
	}{{"alpha beta", &a}, {"gamma delta", &b}} {
		r := post(t, s, PathTokenize, `{"model":"m","messages":[{"role":"user","content":"`+x.msg+`"}]}`)
		if err := json.NewDecoder(r.Body).Decode(x.out); err != nil {
			t.Fatal(err)
		}
	}
	shared := 0
	for shared < min(len(a.Tokens), len(b.Tokens)) && a.Tokens[shared] == b.Tokens[shared] {
		shared++
	}
	if shared != 27 || len(a.Tokens) != 27+2+4 {
		t.Errorf("shared prefix %d of %d tokens, want 27 of 33", shared, len(a.Tokens))
	}
	// two chat requests share the template's first full block (16 tokens)
	for _, m := range []string{"one two", "three four"} {
		io.Copy(io.Discard, post(t, s, PathChat, `{"model":"m","messages":[{"role":"user","content":"`+m+`"}],"max_tokens":1}`).Body)
	}
	if q, h := s.PrefixCache(); q != 66 || h != 16 {
		t.Errorf("prefix cache: %v queries, %v hits; want 66 and 16", q, h)
	}
	resp, err := http.Get(s.URL + PathMetrics)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(page, []byte(`vllm:prefix_cache_hits_total{model_name="m"} 16`)) {
		t.Errorf("metrics page:\n%s", page)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := Start(t, Config{IdleTimeout: 200 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	t0 := time.Now()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want EOF", err)
	}
	if d := time.Since(t0); d < 150*time.Millisecond {
		t.Errorf("closed after %v, before the 200ms idle timeout", d)
	}
}

// A reasoning server streams its first ReasoningTokens tokens in the
// reasoning field, then the answer's in content, and reports the count in
// usage when asked to.
func TestReasoningQuirk(t *testing.T) {
	for _, field := range []string{"", "reasoning"} {
		c := VLLM("m", 4096)
		c.ReasoningTokens, c.ReasoningField, c.ReportReasoningTokens = 3, field, true
		s := Start(t, c)
		resp := post(t, s, PathChat, `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)
		want := field
		if want == "" {
			want = "reasoning_content"
		}
		var kinds []string
		var usage map[string]any
		for _, e := range events(t, resp.Body) {
			if u, ok := e["usage"].(map[string]any); ok {
				usage = u
			}
			for _, ch := range e["choices"].([]any) {
				d := ch.(map[string]any)["delta"].(map[string]any)
				switch {
				case d[want] != nil:
					kinds = append(kinds, "r")
				case d["content"] != "":
					kinds = append(kinds, "a")
				}
			}
		}
		if got := strings.Join(kinds, ""); got != "rrraa" {
			t.Errorf("field %q: chunks %q, want rrraa", want, got)
		}
		details, _ := usage["completion_tokens_details"].(map[string]any)
		if details["reasoning_tokens"] != 3.0 || usage["completion_tokens"] != 5.0 {
			t.Errorf("usage %v, want 5 completion tokens of which 3 reasoning", usage)
		}
	}
}
