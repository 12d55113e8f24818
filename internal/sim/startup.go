package sim

import (
	"context"
	"fmt"
	"time"
)

// maxStartupDelay is the longest --startup-delay accepted.
const maxStartupDelay = time.Hour

// parseStartupDelay reads --startup-delay: a duration from 0 to an hour.
func parseStartupDelay(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > maxStartupDelay {
		return 0, fmt.Errorf("flag --startup-delay: %q is not a duration from 0 to 1h, e.g. 3s", s)
	}
	return d, nil
}

// startUp takes Config.StartupDelay before the server listens, as a vLLM
// server loads its weights, compiles and captures CUDA graphs before its
// port opens: a third of the delay each, each ended by the log line vLLM
// prints for it, timed as vLLM times it (on the wall clock, so scaled by
// Config.TimeScale). An ended ctx stops it.
func (s *Server) startUp(ctx context.Context) error {
	d := s.cfg.wall(s.cfg.StartupDelay)
	if d <= 0 {
		return nil
	}
	phases := []func(time.Duration){
		func(t time.Duration) { s.logf("Model loading took 0.0000 GiB and %.6f seconds", t.Seconds()) },
		func(t time.Duration) { s.logf("torch.compile takes %.2f s in total", t.Seconds()) },
		func(t time.Duration) { s.logf("Graph capturing finished in %.0f secs, took 0.00 GiB", t.Seconds()) },
	}
	for i, logPhase := range phases {
		part := d / time.Duration(len(phases))
		if i == len(phases)-1 {
			part = d - part*time.Duration(len(phases)-1)
		}
		start := time.Now()
		t := time.NewTimer(part)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
		logPhase(time.Since(start))
	}
	return nil
}
