package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestResetPrefixCache(t *testing.T) {
	var resets int
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/reset_prefix_cache" && r.Header.Get("Authorization") == "Bearer k" {
			resets++
			return
		}
		http.NotFound(w, r)
	}))
	defer ok.Close()
	if err := ResetPrefixCache(context.Background(), ok.URL+"/", "k"); err != nil || resets != 1 {
		t.Errorf("reset: err %v after %d resets, want nil after 1", err, resets)
	}
	// a server without the endpoint (vLLM without VLLM_SERVER_DEV_MODE=1)
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	err := ResetPrefixCache(context.Background(), none.URL, "")
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "VLLM_SERVER_DEV_MODE=1") {
		t.Errorf("reset on a server without the endpoint: %v, want a 404 naming VLLM_SERVER_DEV_MODE=1", err)
	}
}
