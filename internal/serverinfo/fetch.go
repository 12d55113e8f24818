package serverinfo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/boundedget"
	"github.com/llmgate/llmgate/untrusted"
)

// Read bounds. A /v1/models page lists a model per entry, a few hundred
// bytes each: 4 MiB holds thousands (every LoRA adapter of a big server);
// /version is one short object. A larger page is refused unread, so an
// endless body costs a bounded amount of memory.
const (
	MaxModelsBytes  = 4 << 20
	MaxVersionBytes = 64 << 10
	// RequestTimeout bounds each of Discover's requests.
	RequestTimeout = 10 * time.Second
	// maxShown bounds a server-reported name llmgate only shows.
	maxShown = 200
)

// ErrTooLarge is wrapped when a body exceeds its bound.
var ErrTooLarge = boundedget.ErrTooLarge

// BaseURL checks raw is an http(s) URL with a host and returns the server's
// root: without a trailing slash, and without a trailing /v1 (the OpenAI
// SDK's convention and how Ollama documents its URL), since llmgate adds
// /v1/... itself.
func BaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q: want an http:// or https:// URL with a host, such as http://127.0.0.1:8000", raw)
	}
	base := strings.TrimRight(raw, "/")
	base = strings.TrimSuffix(base, "/v1")
	return strings.TrimRight(base, "/"), nil
}

// Shown makes a name a server reports about itself (a model, a version)
// safe to print and publish, and short.
func Shown(s string) string { return untrusted.Short(s, maxShown) }

// get GETs base+path (with a bearer token when apiKey is set) through hc
// (http.DefaultClient when nil) and returns the status and the body, read
// up to limit bytes; a longer body is an error wrapping ErrTooLarge.
func get(ctx context.Context, hc *http.Client, base, path, apiKey string, limit int64) (int, []byte, error) {
	return do(ctx, hc, http.MethodGet, base, path, apiKey, nil, limit)
}

// do sends one request and reads the answer within limit bytes.
func do(ctx context.Context, hc *http.Client, method, base, path, apiKey string, body io.Reader, limit int64) (int, []byte, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	switch err := boundedget.Body(resp.Body, limit, &buf); {
	case errors.Is(err, ErrTooLarge):
		return resp.StatusCode, nil, fmt.Errorf("%s %s: %w", method, path, err)
	case err != nil:
		return resp.StatusCode, nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return resp.StatusCode, buf.Bytes(), nil
}

// statusError says what a non-200 answer was, with an excerpt of its body.
func statusError(method, path string, code int, body []byte) error {
	ex := body
	if len(ex) > 300 {
		ex = ex[:300]
	}
	return fmt.Errorf("%s %s: http %d: %s", method, path, code, untrusted.Short(strings.TrimSpace(string(ex)), 300))
}

// Model is one entry of /v1/models.
type Model struct {
	// ID is the name requests use.
	ID string `json:"id"`
	// Root is the model path the server loaded (vLLM); "" when not said.
	Root string `json:"root,omitempty"`
	// MaxModelLen is the context in tokens (vLLM reports it); 0 when not said.
	MaxModelLen int `json:"max_model_len,omitempty"`
}

// Models returns what GET /v1/models lists, each name made safe to show.
func Models(ctx context.Context, hc *http.Client, base, apiKey string) ([]Model, error) {
	code, b, err := get(ctx, hc, base, "/v1/models", apiKey, MaxModelsBytes)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, statusError(http.MethodGet, "/v1/models", code, b)
	}
	var page struct {
		Data []Model `json:"data"`
	}
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("GET /v1/models: decode: %w", err)
	}
	for i := range page.Data {
		m := &page.Data[i]
		m.ID, m.Root = Shown(m.ID), Shown(m.Root)
		m.MaxModelLen = max(m.MaxModelLen, 0)
	}
	return page.Data, nil
}

// Version returns what GET /version says ("" when the server has none),
// made safe to show.
func Version(ctx context.Context, hc *http.Client, base string) string {
	v, _ := version(ctx, hc, base)
	return v
}

// version is Version with the answer's status (0 when none came).
func version(ctx context.Context, hc *http.Client, base string) (string, int) {
	code, b, err := get(ctx, hc, base, "/version", "", MaxVersionBytes)
	if err != nil || code != http.StatusOK {
		return "", code
	}
	var v struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &v) != nil {
		return "", code
	}
	return Shown(v.Version), code
}
