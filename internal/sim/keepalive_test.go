package sim

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestKeepAliveClosesIdleConnections checks Serve closes a keep-alive
// connection left idle past KeepAlive, as uvicorn does in vLLM, and not
// before: a client that reuses it later finds it closed.
func TestKeepAliveClosesIdleConnections(t *testing.T) {
	const keep = 300 * time.Millisecond
	cfg := mustArgs(t, "--model", "tiny", "--profile", "tiny")
	cfg.KeepAlive = keep
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	answered := time.Now()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("status %d, close %v: want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	// The read blocks until the server closes the idle connection.
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("read on the idle connection: %v, want EOF (closed by the server)", err)
	}
	if idle := time.Since(answered); idle < keep {
		t.Fatalf("closed after %v idle, before the keep-alive of %v", idle, keep)
	}
}

func TestParseKeepAlive(t *testing.T) {
	if d, err := ParseKeepAlive("600"); err != nil || d != 600*time.Second {
		t.Fatalf("600: %v, %v", d, err)
	}
	for _, bad := range []string{"", "0", "-1", "5s", "1.5", "86401"} {
		if _, err := ParseKeepAlive(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	var c Config
	if c.keepAlive() != DefaultKeepAlive || DefaultKeepAlive != 5*time.Second {
		t.Fatalf("default keep-alive %v, want vLLM's 5s", c.keepAlive())
	}
}
