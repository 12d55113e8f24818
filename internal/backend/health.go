package backend

import (
	"context"
	"net/http"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
)

// Health is a server's answer to GET /health.
type Health struct {
	// Code is the HTTP status code.
	Code int
	// Status is the status line as the server sent it, neutralised.
	Status string
}

// OK reports whether the server is healthy: 200, as vLLM answers once it
// serves.
func (h Health) OK() bool { return h.Code == http.StatusOK }

// Alive reports whether the server still answers as a live one: any
// status below 500 (a server without /health answers 404 and is alive;
// vLLM answers 500 once its engine died).
func (h Health) Alive() bool { return h.Code < http.StatusInternalServerError }

// String is the answer as an error message says it.
func (h Health) String() string { return "GET /health: " + h.Status }

// GetHealth asks GET /health of the server at base through client
// (http.DefaultClient when nil); the error is a failure to get any answer.
// The body is not read: the status is the answer.
func GetHealth(ctx context.Context, client *http.Client, base string) (Health, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/health", nil)
	if err != nil {
		return Health{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Health{}, err
	}
	resp.Body.Close()
	return Health{Code: resp.StatusCode, Status: untrusted.Line(resp.Status)}, nil
}
