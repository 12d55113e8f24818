package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestGetHealth checks the answer's code is read as healthy (200), alive
// (below 500) or dead, and that a server's status text is neutralised.
func TestGetHealth(t *testing.T) {
	tests := []struct {
		code      int
		ok, alive bool
	}{
		{http.StatusOK, true, true},
		{http.StatusNotFound, false, true}, // an endpoint without /health
		{http.StatusInternalServerError, false, false},
		{http.StatusServiceUnavailable, false, false},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/health" || r.Method != http.MethodGet {
				t.Errorf("asked %s %s, want GET /health", r.Method, r.URL.Path)
			}
			w.WriteHeader(tt.code)
		}))
		h, err := GetHealth(context.Background(), nil, srv.URL+"/")
		srv.Close()
		if err != nil || h.Code != tt.code || h.OK() != tt.ok || h.Alive() != tt.alive {
			t.Errorf("%d: got %+v (ok %v, alive %v), %v; want ok %v, alive %v", tt.code, h, h.OK(), h.Alive(), err, tt.ok, tt.alive)
		}
	}
	if _, err := GetHealth(context.Background(), nil, "http://127.0.0.1:1"); err == nil {
		t.Error("no server: no error")
	}
}
