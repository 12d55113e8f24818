package backend

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go/wait"
)

// healthStrategy is the readiness check: GET /health on the mapped port
// answers 200. Between polls it looks at the container's state and fails at
// once when the process has exited, so a bad flag or an out-of-memory kill
// does not wait out the startup timeout.
//
// It differs from wait.ForHTTP in one way: besides the host testcontainers
// names (which inside a container is the default gateway), it also tries
// 127.0.0.1, which is right for a CI job that runs in a container on the host
// network with the Docker socket mounted. The host that answered is kept for
// BaseURL.
type healthStrategy struct {
	timeout time.Duration
	poll    time.Duration
	port    string // in the container, e.g. "8000/tcp"

	mu   sync.Mutex
	host string
}

var (
	_ wait.Strategy        = (*healthStrategy)(nil)
	_ wait.StrategyTimeout = (*healthStrategy)(nil)
)

func newHealthStrategy(timeout time.Duration, port string) *healthStrategy {
	return &healthStrategy{timeout: timeout, poll: 500 * time.Millisecond, port: port}
}

// Timeout is the startup timeout.
func (h *healthStrategy) Timeout() *time.Duration { return &h.timeout }

// String describes the strategy in testcontainers' log lines.
func (h *healthStrategy) String() string {
	return fmt.Sprintf("GET /health = 200 on port %s", h.port)
}

// readyHost is the host that answered /health ("" before it did).
func (h *healthStrategy) readyHost() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.host
}

// WaitUntilReady polls until /health answers 200, the container exits, or the timeout.
func (h *healthStrategy) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(h.poll)
	defer tick.Stop()
	for {
		st, err := target.State(ctx)
		if err != nil {
			if ctx.Err() != nil { // the timeout ran out during the call
				return fmt.Errorf("GET /health did not answer 200 within %s: %w", h.timeout, ctx.Err())
			}
			return fmt.Errorf("container state: %w", err)
		}
		if err := exitedError(st); err != nil {
			return err
		}
		if host := h.probe(ctx, client, target); host != "" {
			h.mu.Lock()
			h.host = host
			h.mu.Unlock()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("GET /health did not answer 200 within %s: %w", h.timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// probe returns the first candidate host on which /health answers 200.
func (h *healthStrategy) probe(ctx context.Context, client *http.Client, target wait.StrategyTarget) string {
	port, err := target.MappedPort(ctx, h.port)
	if err != nil || port.IsZero() {
		return ""
	}
	for _, host := range candidateHosts(ctx, target) {
		if h, err := GetHealth(ctx, client, "http://"+net.JoinHostPort(host, port.Port())); err == nil && h.OK() {
			return host
		}
	}
	return ""
}

// candidateHosts is the testcontainers host (localhost as 127.0.0.1), then 127.0.0.1.
func candidateHosts(ctx context.Context, target wait.StrategyTarget) []string {
	hosts := []string{"127.0.0.1"}
	if h, err := target.Host(ctx); err == nil && h != "" && h != "localhost" && h != "127.0.0.1" {
		hosts = []string{h, "127.0.0.1"}
	}
	return hosts
}

// exitedError says why a container that is not running stopped; nil while it runs.
func exitedError(st *container.State) error {
	switch {
	case st.Running:
		return nil
	case st.OOMKilled:
		return fmt.Errorf("container was killed for running out of memory (exit code %d)", st.ExitCode)
	case st.Status == container.StateExited || st.Status == container.StateDead:
		return fmt.Errorf("container exited with code %d", st.ExitCode)
	case st.Status == container.StateCreated:
		return nil
	default:
		return fmt.Errorf("container is %s", strings.ToLower(string(st.Status)))
	}
}
