package boundedget

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestGet(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			if r.Header.Get("Authorization") != "Bearer k" {
				http.Error(w, "no key", http.StatusUnauthorized)
				return
			}
			w.Write([]byte("0123456789"))
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 11))
		case "/missing":
			http.NotFound(w, r)
		case "/stall":
			w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)
	var buf bytes.Buffer
	ctx := context.Background()

	code, err := Get(ctx, nil, srv.URL+"/ok", Bearer("k"), 5*time.Second, 10, &buf)
	if code != 200 || err != nil || buf.String() != "0123456789" {
		t.Errorf("a body at the bound: %d %v %q", code, err, buf.String())
	}
	if code, err = Get(ctx, nil, srv.URL+"/big", nil, 5*time.Second, 10, &buf); code != 200 || !errors.Is(err, ErrTooLarge) {
		t.Errorf("a body one byte over: %d %v, want ErrTooLarge", code, err)
	}
	if code, err = Get(ctx, nil, srv.URL+"/missing", nil, 5*time.Second, 10, &buf); code != 404 || err != nil {
		t.Errorf("a 404: %d %v, want the status and no error", code, err)
	}
	// a body that never ends is cut at the time bound
	code, err = Get(ctx, nil, srv.URL+"/stall", nil, 200*time.Millisecond, 1<<20, &buf)
	if code != 200 || err == nil || errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "bound 200ms") {
		t.Errorf("a stalled body: %d %v, want a read error naming the time bound", code, err)
	}
	if Bearer("") != nil {
		t.Error("Bearer of no key is a header")
	}
}
