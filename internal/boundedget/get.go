// Package boundedget reads what a server answers within a size bound and a
// time bound: the one way llmgate reads a page of telemetry (a /metrics
// page, a DCGM exporter's page) or a probe's answer from a server it did
// not write, so that an endless or a slow body costs a bounded amount of
// memory and time.
package boundedget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ErrTooLarge is wrapped when a body exceeds its bound.
var ErrTooLarge = errors.New("the answer is larger than llmgate reads")

// Body reads r into buf (reset first) up to limit bytes. A longer body is
// an error wrapping ErrTooLarge, and buf then holds only its first limit+1
// bytes, which the caller must not use.
func Body(r io.Reader, limit int64, buf *bytes.Buffer) error {
	buf.Reset()
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	switch {
	case n > limit:
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	case err != nil:
		return err
	}
	return nil
}

// Get GETs url with header through hc (http.DefaultClient when nil), all
// of it within timeout, and returns the answer's status code. The body of
// a 200 answer is read into buf (Body's bound and error); any other
// answer's body is not read.
func Get(ctx context.Context, hc *http.Client, url string, header http.Header, timeout time.Duration, limit int64, buf *bytes.Buffer) (int, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if err := Body(resp.Body, limit, buf); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return resp.StatusCode, err
		}
		return resp.StatusCode, fmt.Errorf("reading the answer (bound %v): %w", timeout, err)
	}
	return resp.StatusCode, nil
}

// Bearer is the header of a bearer token, or none when key is empty.
func Bearer(key string) http.Header {
	if key == "" {
		return nil
	}
	return http.Header{"Authorization": {"Bearer " + key}}
}
