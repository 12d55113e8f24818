package runner

import (
	"context"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/results"
)

// IdleWatchLimit bounds how long a server's idle keep-alive timeout is
// watched for (see serverinfo.IdleWatch): past it, a server that keeps
// idle connections that long has none that matters.
const IdleWatchLimit = 10 * time.Minute

// knownServer is what the runner knows of one started server: its Features
// (serverinfo.Discover), found once when its first run begins, and the watch of its idle timeout,
// which goes on in the background while its runs go on.
type knownServer struct {
	feats   *serverinfo.Features
	missing []results.MissingFeature
	idle    *serverinfo.IdleWatch
}

// server returns what is known of inst's server, probing it the first
// time and reporting what it lacks.
func (r *runner) server(ctx context.Context, inst backend.Instance, apiKey, ref string) *knownServer {
	if ps, ok := r.servers[inst]; ok {
		return ps
	}
	o := serverinfo.Options{BaseURL: inst.BaseURL(), APIKey: apiKey, Model: inst.Model(), Generate: true}
	ps := &knownServer{feats: serverinfo.Discover(ctx, o)}
	ps.missing = ps.feats.Missing()
	// Only a running server's idle timeout is unknown: the in-process
	// simulator keeps idle connections, a server container is started with
	// VLLM_HTTP_TIMEOUT_KEEP_ALIVE (backend.KeepAliveEnv).
	if _, endpoint := inst.(*backend.Endpoint); endpoint {
		ps.idle = serverinfo.WatchIdle(context.WithoutCancel(ctx), inst.BaseURL(), IdleWatchLimit)
	}
	if r.servers == nil {
		r.servers = map[backend.Instance]*knownServer{}
	}
	r.servers[inst] = ps
	r.progress.Report(event.ServerDiscovered{Target: ref, Missing: ps.missing})
	return ps
}

// forget ends what the runner keeps of a server that is stopping.
func (r *runner) forget(inst backend.Instance) {
	if ps, ok := r.servers[inst]; ok {
		if ps.idle != nil {
			ps.idle.Stop()
		}
		delete(r.servers, inst)
	}
}

// loadFeatures is what the load engine uses of the server's Features, with
// the idle timeout as far as it has been seen.
func (ps *knownServer) loadFeatures() load.ServerFeatures {
	f := ps.feats
	sf := load.ServerFeatures{NoTokenize: f.Tokenize.Missing() || (f.Tokenize.Status == 0 && f.Tokenize.Err != "")}
	if f.TokenIDs.Known && !f.TokenIDs.Supported {
		sf.TokenIDsRefused = f.TokenIDs.Note
	}
	if m, ok := f.ModelCard(f.Model); ok {
		sf.MaxModelLen = m.MaxModelLen
	}
	if ps.idle != nil {
		if d, closed, _ := ps.idle.Result(); closed {
			sf.IdleTimeout = d
		}
	}
	return sf
}

// scrapes reports whether the server's /metrics is worth scraping.
func (ps *knownServer) scrapes() bool {
	return ps.feats.Metrics.OK() && ps.feats.MetricsFamily != ""
}

// contextLimit is the served model's context from /v1/models, 0 unknown.
func (ps *knownServer) contextLimit(model string) int {
	m, ok := ps.feats.ModelCard(model)
	if !ok {
		return 0
	}
	return m.MaxModelLen
}
