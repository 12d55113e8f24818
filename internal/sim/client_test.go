package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// startSim runs a simulator behind a real loopback HTTP server for a test.
func startSim(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return s, hs.URL
}

// mustArgs parses vLLM-style args for a test.
func mustArgs(t testing.TB, args ...string) Config {
	t.Helper()
	c, _, err := ParseArgs(args)
	if err != nil {
		t.Fatalf("ParseArgs(%q): %v", args, err)
	}
	return c
}

// result is what the test client saw of one streamed request.
type result struct {
	ttft, e2e  time.Duration
	text       string
	chunks     int
	usage      *usageInfo
	finish     string
	status     int
	errBody    string
	firstChunk string
}

func (r result) tpot(outTokens int) time.Duration {
	if outTokens < 2 {
		return 0
	}
	return (r.e2e - r.ttft) / time.Duration(outTokens-1)
}

var testClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}

// stream posts body to url and reads the SSE answer line by line, timing
// the first chunk with non-empty choices and the last one.
func stream(ctx context.Context, url string, body any) (result, error) {
	var res result
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := testClient.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		eb, _ := io.ReadAll(resp.Body)
		res.errBody = string(eb)
		return res, nil
	}
	var text strings.Builder
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil {
			if err == io.EOF {
				return res, fmt.Errorf("stream ended without [DONE]")
			}
			return res, err
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			res.text = text.String()
			return res, nil
		}
		var chunk struct {
			Choices []struct {
				Text  *string `json:"text"`
				Delta *struct {
					Content *string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *usageInfo `json:"usage"`
			Error *errorInfo `json:"error"`
		}
		if err := json.Unmarshal(data, &chunk); err != nil {
			return res, fmt.Errorf("bad chunk %q: %w", data, err)
		}
		if chunk.Error != nil {
			return res, fmt.Errorf("error event: %s", chunk.Error.Message)
		}
		now := time.Since(start)
		if len(chunk.Choices) > 0 {
			if res.chunks == 0 {
				res.ttft = now
				res.firstChunk = string(data)
			}
			res.chunks++
			res.e2e = now
			c := chunk.Choices[0]
			if c.Text != nil {
				text.WriteString(*c.Text)
			}
			if c.Delta != nil && c.Delta.Content != nil {
				text.WriteString(*c.Delta.Content)
			}
			if c.FinishReason != nil {
				res.finish = *c.FinishReason
			}
		}
		if chunk.Usage != nil && len(chunk.Choices) == 0 {
			res.usage = chunk.Usage
		}
	}
}

// load runs n requests with at most conc in flight (closed loop) and
// returns the results in completion order plus the wall time.
func load(t testing.TB, url string, conc, n int, body func(i int) any) ([]result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu   sync.Mutex
		out  []result
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := stream(ctx, url, body(i))
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					out = append(out, r)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if len(errs) > 0 {
		t.Fatalf("%d of %d requests failed; first: %v", len(errs), n, errs[0])
	}
	for _, r := range out {
		if r.status != http.StatusOK {
			t.Fatalf("status %d: %s", r.status, r.errBody)
		}
	}
	return out, wall
}

// percentile of durations (nearest rank), p in [0, 1].
func percentile(ds []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[int(p*float64(len(s)-1)+0.5)]
}

func ttfts(rs []result) []time.Duration {
	out := make([]time.Duration, len(rs))
	for i, r := range rs {
		out[i] = r.ttft
	}
	return out
}

func outputTokens(rs []result) int {
	n := 0
	for _, r := range rs {
		if r.usage != nil {
			n += r.usage.CompletionTokens
		}
	}
	return n
}

// promptIDs is a token-id prompt of n ids, distinct per key.
func promptIDs(key, n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = 1000 + (key*7919+i*104729)%20000
	}
	return ids
}

// completion is a streamed /v1/completions body with exact lengths.
func completion(prompt []int, maxTokens int) map[string]any {
	return map[string]any{
		"prompt": prompt, "max_tokens": maxTokens, "ignore_eos": true, "stream": true,
		"stream_options": map[string]any{"include_usage": true},
	}
}
