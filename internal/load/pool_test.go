package load

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// TestPoolServesEveryConnection checks that a closed loop of 8 users runs
// on the 8 connections opened before the clock started: none is dialled
// while requests are being timed, and the server sees no others.
func TestPoolServesEveryConnection(t *testing.T) {
	var conns atomic.Int64
	f := newFakeServer(t, func(f *fakeServer) {
		f.onConn = func(c net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
	})
	const users = 8
	cl, err := newClient(f.URL(), "", users, time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.close()
	if err := cl.pool.fill(context.Background(), users); err != nil {
		t.Fatal(err)
	}
	origin := time.Now()
	var wg sync.WaitGroup
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 4 {
				req := bodyMaker{model: "m"}.completion([]int{u, i}, 3)
				var rec results.Record
				cl.do(context.Background(), req, origin, &rec)
				if !rec.OK() {
					t.Errorf("request failed: %s", rec.Error)
				}
			}
		}()
	}
	wg.Wait()
	cl.pool.mu.Lock()
	late := cl.pool.late
	cl.pool.mu.Unlock()
	if late != 0 {
		t.Errorf("%d connections were dialled while requests were timed, want 0", late)
	}
	if n := conns.Load(); n != users {
		t.Errorf("server saw %d connections, want %d", n, users)
	}
}

// listenTCP listens on loopback until the test ends and hands over each
// connection it accepts.
func listenTCP(t *testing.T) (addr string, accepted <-chan net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	conns := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	return l.Addr().String(), conns
}

func TestPoolRefreshReplacesStaleConnections(t *testing.T) {
	addr, accepted := listenTCP(t)
	p := newConnPool(addr, nil, time.Minute)
	p.limit.ns.Store(0) // everything is stale at once
	if err := p.fill(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if err := p.refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for range 4 { // two first, two replacements
		(<-accepted).Close()
	}
	if len(p.ready) != 2 {
		t.Errorf("%d ready connections after refresh, want 2", len(p.ready))
	}
}
