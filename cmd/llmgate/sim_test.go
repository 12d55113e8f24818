package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine to write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSimHelp(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"sim", "--help"}, &out, &errb)
	if code := exitCode(err, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"--max-num-seqs", "--slowdown", "--stall DUR@AT", "llama-3.1-8b-h100", "mixtral-8x7b-h100", "tiny"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestSimBadFlag(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"sim", "--max-num-seqs", "lots"}, &out, &errb)
	if code := exitCode(err, &errb); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errb.String(), "not an integer") {
		t.Errorf("stderr %q lacks the reason", errb.String())
	}
}

// `llmgate sim MODEL --flags` serves like `vllm serve` until interrupted.
func TestSimServes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		err := run(ctx, []string{"sim", "my/model", "--profile", "tiny", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--enforce-eager", "--dtype", "bfloat16"}, &out, &errb)
		done <- exitCode(err, &errb)
	}()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the simulator did not come up: %v\n%s", err, out.String())
		}
		time.Sleep(10 * time.Millisecond) // polling readiness, as a container runner does
	}
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model":"my/model","prompt":"hi","max_tokens":3}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("completion: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d after interrupt: %s", code, errb.String())
	}
	for _, want := range []string{"# GPU blocks: 256", "GPU KV cache size: 4,096 tokens", "Application startup complete."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "--enforce-eager") || !strings.Contains(errb.String(), "--dtype") {
		t.Errorf("stderr lacks warnings for unknown flags: %q", errb.String())
	}
}
