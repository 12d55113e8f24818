package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/llmgate/llmgate/untrusted"
)

// resetTimeout bounds a prefix-cache reset.
const resetTimeout = 30 * time.Second

// ResetPrefixCache asks the server at baseURL to forget its cached prefixes
// (POST /reset_prefix_cache, which vLLM serves when started with
// VLLM_SERVER_DEV_MODE=1, and the simulator always), so that a run does not
// measure cache hits left by the one before. The error says why the cache
// could not be reset; the run can go on without it.
func ResetPrefixCache(ctx context.Context, baseURL, apiKey string) error {
	ctx, cancel := context.WithTimeout(ctx, resetTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, trimSlash(baseURL)+"/reset_prefix_cache", nil)
	if err != nil {
		return err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST /reset_prefix_cache: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, bodyExcerpt))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Errorf("POST /reset_prefix_cache: http %d (vLLM serves it only when started with VLLM_SERVER_DEV_MODE=1)", resp.StatusCode)
	default:
		return fmt.Errorf("POST /reset_prefix_cache: http %d: %s", resp.StatusCode, untrusted.Line(strings.TrimSpace(string(b))))
	}
}
