package target

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Endpoint is a server that is already running (a cluster, llm-d, a laptop).
// llmgate neither starts nor stops it. It implements Instance.
type Endpoint struct {
	baseURL string
	meta    Metadata
}

var _ Instance = (*Endpoint)(nil)

// NewEndpoint checks that the server at rawURL answers (GET /health is 200,
// or GET /v1/models is) and that it serves model; an empty model means the
// first one it lists. An unreachable server, a rejected API key or a model
// it does not serve is an error wrapping ErrUnavailable.
func NewEndpoint(ctx context.Context, rawURL, model, apiKey string) (*Endpoint, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want an http:// or https:// URL with a host", rawURL)
	}
	base := strings.TrimRight(rawURL, "/")

	healthErr := requireHealthy(ctx, base)
	served, modelsErr := fetchModels(ctx, base, apiKey)
	if healthErr != nil && modelsErr != nil {
		return nil, unavailable(fmt.Errorf("endpoint %s is not reachable: /health: %v; /v1/models: %w", base, healthErr, modelsErr))
	}
	if modelsErr != nil {
		// /health answers but the API does not: most often a wrong or missing API key.
		return nil, unavailable(fmt.Errorf("endpoint %s: %w", base, modelsErr))
	}
	switch {
	case model == "" && len(served) > 0:
		model = served[0]
	case model == "":
		return nil, unavailable(fmt.Errorf("endpoint %s lists no model in /v1/models; set model in the endpoint block", base))
	case !slices.Contains(served, model):
		return nil, unavailable(fmt.Errorf("endpoint %s does not serve model %q (it serves: %s)", base, model, strings.Join(served, ", ")))
	}
	return &Endpoint{
		baseURL: base,
		meta:    Metadata{Model: model, VLLMVersion: fetchVersion(ctx, base)},
	}, nil
}

// requireHealthy GETs /health and wants 200.
func requireHealthy(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	h, err := GetHealth(ctx, nil, base)
	if err != nil {
		return err
	}
	if !h.OK() {
		return errors.New(h.String())
	}
	return nil
}

// BaseURL is the server's root as configured, without a trailing slash.
func (e *Endpoint) BaseURL() string { return e.baseURL }

// Model is the model name to put in requests.
func (e *Endpoint) Model() string { return e.meta.Model }

// Metadata holds the model and, when the server has /version, its version.
func (e *Endpoint) Metadata() Metadata { return e.meta }

// Stop does nothing: the endpoint is not ours to stop.
func (e *Endpoint) Stop(context.Context) error { return nil }
