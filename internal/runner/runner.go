package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// Options configures Run. The zero value runs the whole plan against the
// suite's own targets and writes nothing.
type Options struct {
	// Plan is the plan to execute, e.g. filtered by --only; nil means s.Plan().
	Plan *plan.Plan
	// Starter brings targets up; nil means backend.Default{}.
	Starter backend.Starter
	// OutputPath is the results file, rewritten atomically after every run
	// with Partial set until the plan is done; "" writes nothing.
	OutputPath string
	// TargetURL, when set, sends every run to this running server instead
	// of the suite's targets (an endpoint target).
	TargetURL string
	// TargetModel, when set, is the model to ask TargetURL's server for
	// instead of the suite target's.
	TargetModel string
	// LogDir is where container logs go; "" means beside OutputPath.
	LogDir string
	// Progress receives events; nil means none.
	Progress event.Progress
	// Env is the environment metadata known before any target starts (git,
	// host, llmgate version, see DetectEnvironment); what the targets report
	// about themselves (image, vLLM version, GPU, model) fills in the rest.
	Env results.Environment
	// ScrapeInterval is how often the server's /metrics is scraped during a
	// run; 0 means load.DefaultScrapeInterval (250 ms).
	ScrapeInterval time.Duration
	// GPUInterval is how often a server's GPUs are read during a run (see
	// backend.GPUReader); 0 means DefaultGPUInterval (1 s).
	GPUInterval time.Duration
	// StopTimeout bounds stopping a target; 0 means two minutes.
	StopTimeout time.Duration
	// StartHeartbeat is how often a ServerWaiting event says a target is
	// still starting (pulling an image, loading weights); 0 means every 30 s.
	StartHeartbeat time.Duration
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// PlanInfo, when set, is recorded in the results file: the plan's
	// fingerprint and, for a shard, which one (see ShardPlan).
	PlanInfo *results.PlanInfo
}

// Run executes the plan of s and returns the results file it wrote. The file
// is returned, and written to opts.OutputPath, even when the error is not
// nil: runs that could not be carried out are recorded as failed or partial.
//
// The error wraps backend.ErrUnavailable when a target could not be started,
// was unreachable, stopped responding or failed every request; it wraps
// ctx.Err() when ctx ended first. Failed asserts are not errors: they are in
// the file (see Judge).
func Run(ctx context.Context, s *plan.Suite, opts Options) (f *results.File, err error) {
	r := newRunner(s, opts)
	return r.file, r.runPlan(ctx, r)
}

type runner struct {
	suite    *plan.Suite
	opts     Options
	plan     *plan.Plan
	starter  backend.Starter
	progress event.Progress
	now      func() time.Time
	file     *results.File
	total    int // runs in the plan
	done     int // runs finished so far
	envSet   bool
	dirMade  bool // the results file's directory exists
	// servers holds each started server's probe, from its first run to its stop.
	servers map[backend.Instance]*knownServer
}

func newRunner(s *plan.Suite, opts Options) *runner {
	r := &runner{suite: s, opts: opts, plan: opts.Plan, starter: opts.Starter, progress: opts.Progress, now: opts.Now}
	if r.plan == nil {
		r.plan = s.Plan()
	}
	if r.starter == nil {
		r.starter = backend.Default{}
	}
	if r.progress == nil {
		r.progress = event.Nop{}
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.opts.ScrapeInterval <= 0 {
		r.opts.ScrapeInterval = load.DefaultScrapeInterval
	}
	if r.opts.GPUInterval <= 0 {
		r.opts.GPUInterval = DefaultGPUInterval
	}
	if r.opts.StopTimeout <= 0 {
		r.opts.StopTimeout = 2 * time.Minute
	}
	r.total = len(r.plan.Runs())
	r.file = &results.File{
		Version:     results.SchemaVersion,
		Suite:       results.SuiteInfo{Name: s.Name, File: s.Filename, Description: untrusted.String(s.Description)},
		Environment: opts.Env,
		Created:     r.now().UTC(),
		Partial:     true,
		Plan:        opts.PlanInfo,
		Runs:        []results.Run{},
	}
	if opts.TargetURL != "" {
		r.file.Environment.TargetKind = untrusted.String(runspec.KindEndpoint)
	}
	return r
}

// executor runs one group of the plan at a time: a plain run's runner
// brings the group's server up and runs its runs (runGroup), an A/B job
// brings up both sides and interleaves their blocks (abRun). It writes and
// finishes its results files, and marks them partial when a panic cuts
// the plan short (abandon).
type executor interface {
	runGroup(ctx context.Context, gi int) error
	write() error
	finish(ctx context.Context) error
	abandon()
}

// runPlan is the one loop over r's plan: it runs each group with x,
// writing x's files after every group, stops at the first write that
// fails or when ctx ends, and reports PlanFinished. A panic in a stage
// still leaves the files behind, partial; the targets are stopped by the
// group's own defer before that.
func (r *runner) runPlan(ctx context.Context, x executor) (err error) {
	defer func() {
		if p := recover(); p != nil {
			x.abandon()
			panic(p)
		}
	}()
	err = r.loop(ctx, x)
	r.progress.Report(event.PlanFinished{File: r.file, Err: err})
	return err
}

func (r *runner) loop(ctx context.Context, x executor) error {
	// Written before anything starts, so an unwritable path fails in
	// seconds rather than after the first server start.
	werr := x.write()
	r.progress.Report(event.PlanStarted{Suite: r.suite.Name, Groups: len(r.plan.Groups), Runs: r.total})
	if werr != nil {
		return werr
	}
	var errs []error
	for i, g := range r.plan.Groups {
		if len(g.Runs) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("interrupted before %s: %w", g.Runs[0].Name, err))
			break
		}
		if err := x.runGroup(ctx, i); err != nil {
			errs = append(errs, err)
		}
		if werr := x.write(); werr != nil {
			return errors.Join(append(errs, werr)...)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := x.finish(ctx); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// abandon marks the file partial and writes it, as far as it can.
func (r *runner) abandon() {
	r.file.Partial = true
	_ = r.write()
}

// finish marks the file partial when ctx ended, a planned run was not
// carried out or a run was cut short, and writes it a last time.
func (r *runner) finish(ctx context.Context) error {
	r.file.Partial = ctx.Err() != nil || r.done < r.total
	for i := range r.file.Runs {
		if r.file.Runs[i].Status == results.StatusPartial {
			r.file.Partial = true
		}
	}
	return r.write()
}

// write saves the results file atomically, if there is one to write,
// creating its directory the first time.
func (r *runner) write() error {
	if r.opts.OutputPath == "" {
		return nil
	}
	if !r.dirMade {
		if err := os.MkdirAll(filepath.Dir(r.opts.OutputPath), 0o755); err != nil {
			return fmt.Errorf("write results file %s: %w", r.opts.OutputPath, err)
		}
		r.dirMade = true
	}
	return results.WriteFile(r.opts.OutputPath, r.file)
}

// record appends a finished run to the file, writes the file and then
// tells Progress, so that what Progress reports is already on disk.
func (r *runner) record(run results.Run) error {
	r.file.Runs = append(r.file.Runs, run)
	idx := r.done
	r.done++
	err := r.write()
	r.progress.Report(event.RunFinished{Index: idx, Runs: r.total, Run: &r.file.Runs[len(r.file.Runs)-1]})
	return err
}

// failRuns records runs that could not be carried out at all.
func (r *runner) failRuns(runs []*plan.Run, targetRef string, err error) error {
	now := r.now().UTC()
	for _, sr := range runs {
		run := newRun(sr, targetRef)
		run.Status = results.StatusFailed
		run.Error = untrusted.String(err.Error())
		run.Started, run.Finished = now, now
		if werr := r.record(run); werr != nil {
			return werr
		}
	}
	return nil
}

func newRun(sr *plan.Run, targetRef string) results.Run {
	return results.Run{Name: sr.Name, Scenario: sr.Scenario, Params: sr.ParamMap(), Target: targetRef}
}

// setEnvironment fills what the first started instance knows about itself
// into the file's environment, keeping what was set already.
func (r *runner) setEnvironment(kind runspec.TargetKind, inst backend.Instance) {
	md := inst.Metadata()
	if md.Model == "" {
		md.Model = inst.Model()
	}
	if r.envSet {
		return
	}
	r.envSet = true
	e := &r.file.Environment
	fill := func(dst *untrusted.String, v string) {
		if *dst == "" {
			*dst = untrusted.String(v) // the server's and the image's words
		}
	}
	fill(&e.TargetKind, string(kind))
	fill(&e.Image, md.Image)
	fill(&e.ImageDigest, md.ImageDigest)
	fill(&e.VLLMVersion, md.VLLMVersion)
	fill(&e.GPU, md.GPU)
	fill(&e.Model, md.Model)
}
