package backend

import (
	"context"
	"strings"
	"time"

	"github.com/llmgate/llmgate/results"
)

// StartupTimer is an Instance that timed its own start-up: a server
// container, from its creation to its readiness.
type StartupTimer interface {
	// Startup is how long the start took and the phases its log timed;
	// nil when it was not timed.
	Startup() *results.Startup
}

var _ StartupTimer = (*Container)(nil)

// startupLogLines is how many of the container's last log lines are read
// for the phases of its start-up (vLLM prints a few hundred by then).
const startupLogLines = 5000

// Startup is how long the container took from its creation to readiness.
func (c *Container) Startup() *results.Startup {
	if c == nil {
		return nil
	}
	return c.startup
}

// Startup is the wrapped instance's, when it timed one: a server read
// through a DCGM exporter still came up as it did.
func (d *dcgmInstance) Startup() *results.Startup {
	if st, ok := d.Instance.(StartupTimer); ok {
		return st.Startup()
	}
	return nil
}

// timeStartup records the start-up of a container that is ready now: the
// seconds since its create answered, and the phases its log timed (best
// effort: a log that cannot be read gives none).
func (c *Container) timeStartup(ctx context.Context, ready time.Time) {
	created := c.track.createdAt()
	if created.IsZero() || ready.Before(created) {
		return
	}
	s := &results.Startup{Seconds: ready.Sub(created).Seconds()}
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	if id := c.track.id(); id != "" {
		if lines, err := tailLogs(ctx, c.cli, id, startupLogLines); err == nil {
			s.Phases = results.ParseStartupPhases(strings.Join(lines, "\n"))
		}
	}
	c.startup = s
}
