package backend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/internal/sim"
)

// Simulator is the in-process simulator (package sim) serving on
// 127.0.0.1 at a random port: no GPU, no Docker. It implements Instance.
type Simulator struct {
	srv      *sim.Server
	baseURL  string
	meta     Metadata
	warnings []string

	cancel context.CancelFunc
	done   chan error

	stopOnce sync.Once
	stopErr  error
}

var _ Instance = (*Simulator)(nil)

// StartSimulator starts a simulator from vLLM-style args (parsed by
// sim.ParseArgs, so a memory sweep's --gpu-memory-utilization applies), with
// model as the positional model when not empty, and profile and apiKey
// overriding the args when not empty. Like a container started with a bad
// flag, a simulator that rejects its args wraps ErrUnavailable.
func StartSimulator(ctx context.Context, model, profile, apiKey string, args []string) (*Simulator, error) {
	if model != "" {
		args = append([]string{model}, args...)
	}
	cfg, warnings, err := sim.ParseArgs(args)
	if err != nil {
		return nil, unavailable(fmt.Errorf("simulator did not start: %w", err))
	}
	if profile != "" {
		cfg.Profile = profile
	}
	if apiKey != "" {
		cfg.APIKey = apiKey
	}
	srv, err := sim.New(cfg)
	if err != nil {
		return nil, unavailable(fmt.Errorf("simulator did not start: %w", err))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, unavailable(fmt.Errorf("simulator: %w", err))
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Simulator{
		srv:      srv,
		baseURL:  "http://" + ln.Addr().String(),
		warnings: warnings,
		cancel:   cancel,
		done:     make(chan error, 1),
	}
	go func() { s.done <- srv.Serve(sctx, ln) }()

	s.meta = Metadata{VLLMVersion: serverinfo.Version(ctx, nil, s.baseURL), Model: srv.ModelName()}
	if p, err := sim.LookupProfile(cfg.Profile); err == nil {
		s.meta.GPU = p.GPUName
	}
	if err := requireHealthy(ctx, s.baseURL); err != nil {
		_ = s.Stop(ctx)
		return nil, unavailable(fmt.Errorf("simulator: %w", err))
	}
	return s, nil
}

// BaseURL is the simulator's root, e.g. "http://127.0.0.1:40123".
func (s *Simulator) BaseURL() string { return s.baseURL }

// Model is the served model name.
func (s *Simulator) Model() string { return s.meta.Model }

// Metadata reports the simulator's version, the model and the simulated GPU.
func (s *Simulator) Metadata() Metadata { return s.meta }

// Warnings are the args the simulator accepted but ignored (unknown vLLM flags).
func (s *Simulator) Warnings() []string { return s.warnings }

// Stop shuts the server down (in-flight requests end) and waits for it, also
// when ctx is already cancelled. It is safe to call twice.
func (s *Simulator) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() {
		// Like a container, it stops even when ctx is already cancelled.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBudget)
		defer cancel()
		s.cancel()
		select {
		case err := <-s.done:
			s.stopErr = err
		case <-cctx.Done():
			s.stopErr = fmt.Errorf("simulator: stop: %w", errors.Join(cctx.Err(), s.srv.Close()))
		}
	})
	return s.stopErr
}
