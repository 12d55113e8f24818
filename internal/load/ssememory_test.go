package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// TestSSEMemoryPerConnection streams one 8 MiB event to each of 8
// concurrent requests over real loopback HTTP: each fails as too_large once
// its event passes maxEventSize, and what the client allocated to read it
// stays near that bound per connection (before the bound an 8 MiB event
// cost about 56 MiB of allocation and 16 MiB held per connection).
func TestSSEMemoryPerConnection(t *testing.T) {
	event := []byte("data: {\"choices\":[{\"text\":\"" + strings.Repeat("x", 8<<20) + "\"}]}\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(event)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // hold the stream open: the client ends it
	}))
	defer srv.Close()
	const n = 8
	cl, err := newClient(srv.URL, "", n, time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.close()
	if err := cl.pool.fill(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	origin := time.Now()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// the peak of the heap while the requests read, sampled: a figure
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		most := uint64(0)
		for {
			select {
			case <-stop:
				peak <- most
				return
			default:
			}
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapAlloc)
		}
	}()
	var recs [n]results.Record
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl.do(context.Background(), bodyMaker{model: "m"}.completion([]int{i}, 4), origin, &recs[i])
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	close(stop)
	held := float64(<-peak-min(before.HeapAlloc, after.HeapAlloc)) / n / (1 << 20)
	perConn := float64(after.TotalAlloc-before.TotalAlloc) / n / (1 << 20)
	t.Logf("per connection for an 8 MiB event: %.2f MiB allocated, peak heap %.2f MiB above the start (bound %d MiB)", perConn, held, maxEventSize>>20)
	for i, r := range recs {
		if r.ErrorKind != results.ErrorTooLarge || !strings.Contains(r.Error, "larger than 1 MiB") {
			t.Errorf("request %d: %s %q, want too_large", i, r.ErrorKind, r.Error)
		}
	}
	if perConn > 4*float64(maxEventSize>>20) {
		t.Errorf("%.1f MiB allocated per connection, want at most 4 × the %d MiB event bound", perConn, maxEventSize>>20)
	}
}
