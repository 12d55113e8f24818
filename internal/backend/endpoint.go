package backend

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/internal/serverinfo"
)

// Endpoint is a server that is already running (a cluster, llm-d, a laptop).
// llmgate neither starts nor stops it. It implements Instance.
type Endpoint struct {
	baseURL string
	meta    Metadata
}

var _ Instance = (*Endpoint)(nil)

// NewEndpoint checks that the server at rawURL answers (GET /health is 200,
// or GET /v1/models is) and that it serves model, and picks the name
// requests must use (see serverinfo.Find: Ollama's "tiny:latest" serves
// "tiny"). A base URL ending in /v1 is the server's root plus /v1, as the
// OpenAI SDK writes it. An empty model takes the one model the server
// lists; a server that lists several needs one named. An unreachable
// server, a rejected API key, a model it does not serve or an ambiguous
// one is an error wrapping ErrUnavailable. Every error names the URL
// (rawURL, or the base URL made of it).
func NewEndpoint(ctx context.Context, rawURL, model, apiKey string) (*Endpoint, error) {
	base, err := serverinfo.BaseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("endpoint %w", err)
	}
	healthErr := requireHealthy(ctx, base)
	served, modelsErr := serverinfo.Models(ctx, nil, base, apiKey)
	if healthErr != nil && modelsErr != nil {
		return nil, unavailable(fmt.Errorf("endpoint %s is not reachable: /health: %v; /v1/models: %w", base, healthErr, modelsErr))
	}
	if modelsErr != nil {
		// /health answers but the API does not: most often a wrong or missing API key.
		return nil, unavailable(fmt.Errorf("endpoint %s: %w", base, modelsErr))
	}
	ids := serverinfo.IDs(served)
	switch {
	case model == "" && len(served) == 1:
		model = served[0].ID
	case model == "" && len(served) > 1:
		return nil, unavailable(fmt.Errorf("endpoint %s serves %d models (%s): name the one to measure with --model, or model in the endpoint block", base, len(served), quoteList(ids)))
	case model == "":
		return nil, unavailable(fmt.Errorf("endpoint %s lists no model in /v1/models; set model in the endpoint block", base))
	default:
		m, _, ok := serverinfo.Find(served, model)
		if !ok {
			return nil, unavailable(fmt.Errorf("endpoint %s does not serve model %q (it serves: %s)", base, model, strings.Join(ids, ", ")))
		}
		model = m.ID
	}
	return &Endpoint{
		baseURL: base,
		meta:    Metadata{Model: model, VLLMVersion: serverinfo.Version(ctx, nil, base)},
	}, nil
}

// quoteList quotes each name and joins them with ", ".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
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

// BaseURL is the server's root: as configured, without a trailing slash or /v1.
func (e *Endpoint) BaseURL() string { return e.baseURL }

// Model is the model name to put in requests.
func (e *Endpoint) Model() string { return e.meta.Model }

// Metadata holds the model and, when the server has /version, its version.
func (e *Endpoint) Metadata() Metadata { return e.meta }

// Stop does nothing: the endpoint is not ours to stop.
func (e *Endpoint) Stop(context.Context) error { return nil }
