package event

import (
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// Progress receives the runner's events as it works. Report is called from
// one goroutine at a time, in order, so implementations need no locking.
type Progress interface {
	Report(e Event)
}

// Event is one of PlanStarted, ServerStarting, ServerWaiting, ServerNote, ServerReady,
// ServerDiscovered, ServerStopped, RunStarted, RequestDone, RunFinished,
// PlanFinished and ConfirmStarted.
type Event interface{ event() }

// PlanStarted opens a plan: how much work lies ahead.
type PlanStarted struct {
	Suite  string
	Groups int
	Runs   int
}

// ServerStarting says the target of a group is being brought up.
type ServerStarting struct {
	// Group is the group's index, from 0; Groups is the number of groups.
	Group, Groups int
	// Target is the target's reference, e.g. "server.vllm".
	Target string
	// Kind is the target kind actually started ("endpoint" under --target).
	Kind runspec.TargetKind
	// ServerArgs are the group's server_args.
	ServerArgs []string
	// Scenario is the scenario of the group's first run.
	Scenario string
	// Runs names the group's runs in order.
	Runs []string
}

// ServerWaiting says a group's target is still starting, Elapsed after
// ServerStarting: a large image or model can take many minutes to come up.
type ServerWaiting struct {
	Group   int
	Target  string
	Elapsed time.Duration
}

// ServerNote is what a group's target says while it starts beside the
// outcome, once: going on without testcontainers' reaper, say.
type ServerNote struct {
	Group  int
	Target string
	Text   string
}

// ServerReady says a group's target is up, or could not be brought up (Err).
type ServerReady struct {
	Group  int
	Target string
	// Took is how long the start took.
	Took time.Duration
	// URL is the instance's base URL.
	URL string
	// Model is the served model name, as the server lists it.
	Model untrusted.String
	// Err is why the target could not be started; nil when it is up.
	Err error
}

// ServerDiscovered says what a group's server lacks of what llmgate uses
// (serverinfo), each with its cost; every run on it records the same list.
type ServerDiscovered struct {
	Group   int
	Target  string
	Missing []results.MissingFeature
}

// ServerStopped says a group's target has been brought down.
type ServerStopped struct {
	Group  int
	Target string
	Took   time.Duration
	// Err is a failure to stop cleanly.
	Err error
}

// RunStarted opens one run.
type RunStarted struct {
	// Index is the run's position in the plan, from 0; Runs is the plan's run count.
	Index, Runs int
	Name        string
	Scenario    string
	// Requests and Warmup are the planned request counts; Requests is 0 for
	// runs that stop by Duration.
	Requests, Warmup int
	Duration         time.Duration
	Concurrency      int
	Rate             float64
}

// RequestDone reports one finished request of the current run, warmup included.
type RequestDone struct {
	Record results.Record
}

// RunFinished closes a run with what was recorded for it.
type RunFinished struct {
	Index, Runs int
	Run         *results.Run
}

// PlanFinished closes the plan. Err is what the runner is about to return.
type PlanFinished struct {
	File *results.File
	Err  error
}

// ConfirmStarted says the gate is about to run Runs once more, because a single
// run could not call their changes; the rerun's own plan events follow.
type ConfirmStarted struct {
	Runs []string
}

func (PlanStarted) event()      {}
func (ServerStarting) event()   {}
func (ServerWaiting) event()    {}
func (ServerNote) event()       {}
func (ServerReady) event()      {}
func (ServerDiscovered) event() {}
func (ServerStopped) event()    {}
func (RunStarted) event()       {}
func (RequestDone) event()      {}
func (RunFinished) event()      {}
func (PlanFinished) event()     {}
func (ConfirmStarted) event()   {}

// Nop is a Progress that ignores every event.
type Nop struct{}

// Report does nothing.
func (Nop) Report(Event) {}

var _ Progress = Nop{}
