package load

import (
	"net/http/httptest"
	"testing"

	"github.com/llmgate/llmgate/internal/sim"
)

// simURL serves a simulator started with vLLM-style args on loopback for
// the test, and returns its URL.
func simURL(t testing.TB, args ...string) string {
	t.Helper()
	cfg, _, err := sim.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return hs.URL
}
