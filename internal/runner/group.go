package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// runGroup brings group gi's target up, runs its runs in order and stops
// the target again, whatever happens (error, ctx cancel, panic).
func (r *runner) runGroup(ctx context.Context, gi int) (err error) {
	g := r.plan.Groups[gi]
	spec := r.spec(g)
	ref := g.Target.Ref()
	if r.opts.TargetURL != "" {
		ref = r.opts.TargetURL
	}
	inst, err := r.bringUp(ctx, gi, g, ref, spec, func(err error) error {
		switch {
		case r.opts.TargetURL != "": // ref is the URL, which backend.NewEndpoint's errors name
			return err
		case spec.Kind == runspec.KindEndpoint: // not ours to start
			return fmt.Errorf("%s: %w", ref, err)
		}
		return fmt.Errorf("start %s: %w", ref, err)
	})
	if inst != nil {
		// Stopped even when Start failed: a container is returned with its error.
		defer func() {
			if serr := r.stop(ctx, gi, ref, inst); serr != nil && err == nil {
				err = serr
			}
		}()
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", errors.Join(ctx.Err(), err))
		}
		err = unavailable(err)
		// every run records err: the judge does not say it twice
		return errors.Join(judge.Recorded(err, runNames(g)...), r.failRuns(g.Runs, ref, err))
	}

	var errs []error
	for i, sr := range g.Runs {
		exec := r.execute
		if sr.Capacity != nil {
			exec = r.searchCapacity
		}
		run, fatal, rerr := exec(ctx, inst, spec.APIKey, sr, ref)
		if werr := r.record(run); werr != nil {
			return errors.Join(append(errs, rerr, werr)...)
		}
		if rerr == nil {
			continue
		}
		if run.Error != "" { // the run records why: the judge does not say it twice
			rerr = judge.Recorded(rerr, run.Name)
		}
		errs = append(errs, rerr)
		if !fatal {
			continue
		}
		// The server is gone or we were interrupted: the rest of the
		// group cannot run on this server.
		if ctx.Err() == nil {
			if ferr := r.failRuns(g.Runs[i+1:], ref, fmt.Errorf("not run: %w", rerr)); ferr != nil {
				errs = append(errs, ferr)
			}
		}
		break
	}
	return errors.Join(errs...)
}

// bringUp starts group gi's target spec, named label in the events
// (ServerStarting, then event.ServerReady), and fills the file's environment
// from it. A failed start's error is told as startErr makes it; the
// instance is returned with it when the start left one to stop.
func (r *runner) bringUp(ctx context.Context, gi int, g *plan.Group, label string, spec runspec.Target, startErr func(error) error) (backend.Instance, error) {
	r.progress.Report(event.ServerStarting{Group: gi, Groups: len(r.plan.Groups), Target: label, Kind: spec.Kind,
		ServerArgs: g.ServerArgs, Scenario: g.Runs[0].Scenario, Runs: runNames(g)})
	t0 := r.now()
	inst, err := r.start(ctx, gi, label, spec, r.startOptions(gi, g, spec))
	if err != nil {
		err = startErr(err)
		r.progress.Report(event.ServerReady{Group: gi, Target: label, Took: r.now().Sub(t0), Err: err})
		return inst, err
	}
	r.progress.Report(event.ServerReady{Group: gi, Target: label, Took: r.now().Sub(t0), URL: inst.BaseURL(), Model: untrusted.String(inst.Model())})
	r.setEnvironment(spec.Kind, inst)
	return inst, nil
}

// runNames are the names of the group's runs.
func runNames(g *plan.Group) []string {
	names := make([]string, len(g.Runs))
	for i, sr := range g.Runs {
		names[i] = sr.Name
	}
	return names
}

// stop brings inst down with a context of its own, so that it happens even
// after ctx was cancelled.
func (r *runner) stop(ctx context.Context, gi int, ref string, inst interface {
	Stop(context.Context) error
}) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.StopTimeout)
	defer cancel()
	if ti, ok := inst.(backend.Instance); ok {
		r.forget(ti)
	}
	t0 := r.now()
	err := inst.Stop(sctx)
	if err != nil {
		err = fmt.Errorf("stop %s: %w", ref, err)
	}
	r.progress.Report(event.ServerStopped{Group: gi, Target: ref, Took: r.now().Sub(t0), Err: err})
	return err
}

// spec is the target a group's runs need: its target with the group's
// server args after the block's own, or the --target endpoint instead.
func (r *runner) spec(g *plan.Group) runspec.Target {
	t := g.Target
	if r.opts.TargetURL != "" {
		model := t.Model
		if r.opts.TargetModel != "" {
			model = r.opts.TargetModel
		}
		return runspec.Target{Kind: runspec.KindEndpoint, Name: "target", URL: r.opts.TargetURL, Model: model, APIKey: t.APIKey}
	}
	sp := t.Target
	sp.Args = append(slices.Clone(t.Args), g.ServerArgs...)
	return sp
}

// startOptions is what the runner decides for starting group gi's target
// spec: a server's log file.
func (r *runner) startOptions(gi int, g *plan.Group, spec runspec.Target) backend.StartOptions {
	if spec.Kind != runspec.KindServer {
		return backend.StartOptions{}
	}
	return backend.StartOptions{LogPath: r.logPath(gi, g.Target)}
}

// logPath is where a container's log goes: beside the results file, named
// after it and the target, e.g. results.vllm.log or results.vllm-2.log when
// several groups use the same server block.
func (r *runner) logPath(gi int, t *plan.Target) string {
	dir := r.opts.LogDir
	base := "llmgate"
	if r.opts.OutputPath != "" {
		if dir == "" {
			dir = filepath.Dir(r.opts.OutputPath)
		}
		base = strings.TrimSuffix(filepath.Base(r.opts.OutputPath), filepath.Ext(r.opts.OutputPath))
	}
	if dir == "" {
		return ""
	}
	name := base + "." + t.Name
	same := 0
	for _, g := range r.plan.Groups {
		if g.Target == t {
			same++
		}
	}
	if same > 1 {
		name += "-" + strconv.Itoa(gi+1)
	}
	return filepath.Join(dir, name+".log")
}

// unavailable marks an error as the target's fault, so that
// errors.Is(err, backend.ErrUnavailable) holds, without changing its text.
func unavailable(err error) error { return backend.Unavailable(err) }

// start brings spec's target up, reporting ServerWaiting every
// StartHeartbeat until it is up or has failed, so a start that takes minutes
// (an image pull, weights loading) is never silent. The heartbeat has ended
// when start returns, so no event of it follows ServerReady.
func (r *runner) start(ctx context.Context, gi int, ref string, spec runspec.Target, opts backend.StartOptions) (backend.Instance, error) {
	if opts.LogPath != "" {
		// Best effort: a log that cannot be written is the target's to report.
		_ = os.MkdirAll(filepath.Dir(opts.LogPath), 0o755)
	}
	every := r.opts.StartHeartbeat
	if every <= 0 {
		every = 30 * time.Second
	}
	t0 := r.now()
	// The heartbeat and the start's notices report from two goroutines.
	var reportMu sync.Mutex
	report := func(e event.Event) {
		reportMu.Lock()
		defer reportMu.Unlock()
		r.progress.Report(e)
	}
	opts.Notice = func(text string) { report(event.ServerNote{Group: gi, Target: ref, Text: text}) }
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				report(event.ServerWaiting{Group: gi, Target: ref, Elapsed: r.now().Sub(t0)})
			}
		}
	}()
	defer func() {
		close(stop)
		<-stopped
	}()
	inst, err := r.starter.Start(ctx, spec, opts)
	if inst != nil && spec.DCGMExporter != "" {
		// The suite names where the GPUs are read: not the target's own way.
		inst = backend.WithDCGMExporter(inst, spec.DCGMExporter, spec.GPUs)
	}
	return inst, err
}
