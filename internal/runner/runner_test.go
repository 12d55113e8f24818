package runner

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/judge"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// loadSuite loads a suite from testdata, failing the test on any error.
func loadSuite(t *testing.T, name string, vars map[string]string) *plan.Suite {
	t.Helper()
	s, diags := suite.Load(filepath.Join("testdata", name), suite.Options{Vars: vars, Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		var b strings.Builder
		_ = suite.WriteDiagnostics(&b, s.Files, diags, false)
		t.Fatalf("load %s:\n%s", name, b.String())
	}
	return s.Runnable()
}

// recorder is a Progress that keeps every event and may act on each.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	hook   func(event.Event)
}

func (r *recorder) Report(e event.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if r.hook != nil {
		r.hook(e)
	}
}

// count returns how many events of each kind were seen, by type name.
func (r *recorder) count() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := map[string]int{}
	for _, e := range r.events {
		switch e.(type) {
		case event.PlanStarted:
			n["plan"]++
		case event.ServerStarting:
			n["starting"]++
		case event.ServerReady:
			n["ready"]++
		case event.ServerStopped:
			n["stopped"]++
		case event.RunStarted:
			n["run"]++
		case event.RequestDone:
			n["request"]++
		case event.RunFinished:
			n["finished"]++
		case event.PlanFinished:
			n["done"]++
		}
	}
	return n
}

// serverURLs returns the base URL of every server that came up.
func (r *recorder) serverURLs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var urls []string
	for _, e := range r.events {
		if e, ok := e.(event.ServerReady); ok && e.Err == nil {
			urls = append(urls, e.URL)
		}
	}
	return urls
}

// assertStopped checks nothing answers at the servers' addresses any more.
func assertStopped(t *testing.T, urls []string) {
	t.Helper()
	for _, u := range urls {
		resp, err := http.Get(u + "/health")
		if err == nil {
			resp.Body.Close()
			t.Errorf("server at %s still answers after Run returned", u)
		}
	}
}

// readBack reads the results file from disk.
func readBack(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.ReadFile(path)
	if err != nil {
		t.Fatalf("read results back: %v", err)
	}
	return f
}

// TestRunTinySuite runs a whole suite against the in-process simulator:
// every run is measured and recorded, asserts are evaluated, the file on
// disk is complete, and every server was stopped.
func TestRunTinySuite(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	rec := &recorder{}
	f, err := Run(context.Background(), s, Options{OutputPath: out, Progress: rec, Env: results.Environment{LLMGateVersion: "test"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	disk := readBack(t, out)
	if disk.Partial || f.Partial {
		t.Error("file is marked partial after a complete plan")
	}
	wantRuns := []string{"chat", "sweep[concurrency=1]", "sweep[concurrency=2]", "restart[max_num_seqs=2]", "restart[max_num_seqs=4]"}
	if len(disk.Runs) != len(wantRuns) {
		t.Fatalf("file has %d runs, want %d", len(disk.Runs), len(wantRuns))
	}
	for i, want := range wantRuns {
		r := disk.Runs[i]
		if r.Name != want || r.Status != results.StatusOK {
			t.Errorf("run %d = %s (%s %v %s), want %s ok", i, r.Name, r.Status, r.InvalidReasons, r.Error, want)
		}
		if r.Target != "simulator.sim" {
			t.Errorf("run %s target = %q, want simulator.sim", r.Name, r.Target)
		}
	}
	chat := disk.Runs[0]
	if chat.Summary.Requests.Completed != 24 || chat.Summary.Requests.Failed != 0 {
		t.Errorf("chat completed %d failed %d, want 24 and 0", chat.Summary.Requests.Completed, chat.Summary.Requests.Failed)
	}
	if chat.Samples == nil || len(chat.Samples.TTFT) != 24 {
		t.Errorf("chat samples missing or not one per measured request: %+v", chat.Samples)
	}
	if chat.Summary.TTFT.P50 <= 0 || chat.Summary.Throughput.OutputTokens <= 0 {
		t.Errorf("chat summary not filled: ttft p50 %v, out tok/s %v", chat.Summary.TTFT.P50, chat.Summary.Throughput.OutputTokens)
	}
	if chat.Summary.Server == nil {
		t.Error("chat has no server metrics although the simulator serves /metrics")
	}
	if chat.ServerSeries == nil || len(chat.ServerSeries.TMS) < 2 || chat.ServerSeries.Failed != 0 {
		t.Errorf("chat server series %+v, want at least the start and end scrapes, none failed", chat.ServerSeries)
	}
	if len(chat.Asserts) != 2 || !chat.Asserts[0].Passed || !chat.Asserts[1].Passed {
		t.Errorf("chat asserts = %+v, want 2 passed", chat.Asserts)
	}
	if disk.Environment.TargetKind != "simulator" || disk.Environment.Model == "" || disk.Environment.LLMGateVersion != "test" {
		t.Errorf("environment = %+v, want simulator, a model and version test", disk.Environment)
	}
	if disk.Suite.Name != "runner-tiny" {
		t.Errorf("suite name = %q", disk.Suite.Name)
	}

	n := rec.count()
	// chat and sweep share one server; each restart point gets its own.
	if n["starting"] != 3 || n["ready"] != 3 || n["stopped"] != 3 {
		t.Errorf("servers starting/ready/stopped = %d/%d/%d, want 3 each", n["starting"], n["ready"], n["stopped"])
	}
	if n["run"] != 5 || n["finished"] != 5 || n["plan"] != 1 || n["done"] != 1 {
		t.Errorf("events = %v, want 5 runs, one plan", n)
	}
	// Every request, warmup included, is reported: 24+6+6+6+6 measured, and
	// at least one warmup per user (4+1+2+2+2) and the 2 asked for each.
	measured := 0
	rec.mu.Lock()
	for _, e := range rec.events {
		if d, ok := e.(event.RequestDone); ok && !d.Record.Warmup {
			measured++
		}
	}
	rec.mu.Unlock()
	if measured != 48 || n["request"] < 48+4+2+2+2+2 {
		t.Errorf("%d requests reported, %d measured; want 48 measured and at least 12 warmup", n["request"], measured)
	}
	assertStopped(t, rec.serverURLs())
}

// TestRunWritesAfterEveryRun checks the file on disk (in a directory Run
// creates) holds each run as soon as it is reported, marked partial until
// the plan is done.
func TestRunWritesAfterEveryRun(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	plan, err := s.Plan().Filter([]string{"sweep"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "new", "dir", "results.json") // created by Run
	var seen []int
	rec := &recorder{hook: func(e event.Event) {
		switch e := e.(type) {
		case event.PlanStarted:
			if f := readBack(t, out); !f.Partial || len(f.Runs) != 0 {
				t.Errorf("before any run the file has %d runs, partial %v", len(f.Runs), f.Partial)
			}
		case event.RunFinished:
			f := readBack(t, out)
			seen = append(seen, len(f.Runs))
			if !f.Partial {
				t.Errorf("after run %d of %d the file is not marked partial", e.Index+1, e.Runs)
			}
		}
	}}
	if _, err := Run(context.Background(), s, Options{Plan: plan, OutputPath: out, Progress: rec}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(seen) != 2 || seen[0] != 1 || seen[1] != 2 {
		t.Errorf("runs on disk at each RunFinished = %v, want [1 2]", seen)
	}
	if f := readBack(t, out); f.Partial || len(f.Runs) != 2 {
		t.Errorf("final file has %d runs, partial %v; want 2, false", len(f.Runs), f.Partial)
	}
}

// TestRunTargetStartFails checks a target that cannot start fails its own
// runs, the other groups still run, the file is written and the error says
// the target was unavailable.
func TestRunTargetStartFails(t *testing.T) {
	s := loadSuite(t, "unreachable.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	rec := &recorder{}
	_, err := Run(context.Background(), s, Options{OutputPath: out, Progress: rec})
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Run error = %v, want one wrapping backend.ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "endpoint.down") {
		t.Errorf("error %q does not name the target", err)
	}
	f := readBack(t, out)
	assertRecorded(t, f, err, "down")
	got := map[string]results.Status{}
	for _, r := range f.Runs {
		got[r.Name] = r.Status
	}
	if got["up"] != results.StatusOK || got["down"] != results.StatusFailed || len(got) != 2 {
		t.Errorf("statuses = %v, want up ok and down failed", got)
	}
	for _, r := range f.Runs {
		if r.Name == "down" && (r.Error == "" || r.Asserts != nil) {
			t.Errorf("failed run has error %q and asserts %v; want a reason and no asserts", r.Error, r.Asserts)
		}
	}
	if f.Partial {
		t.Error("every run was recorded, yet the file is marked partial")
	}
	assertStopped(t, rec.serverURLs())
}

// TestRunAllRequestsFail checks a server that fails every request makes a
// failed run whose asserts are not evaluated, and an unavailable error.
func TestRunAllRequestsFail(t *testing.T) {
	s := loadSuite(t, "failing.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	_, err := Run(context.Background(), s, Options{OutputPath: out})
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Run error = %v, want one wrapping backend.ErrUnavailable", err)
	}
	f := readBack(t, out)
	if len(f.Runs) != 1 {
		t.Fatalf("file has %d runs, want 1", len(f.Runs))
	}
	assertRecorded(t, f, err, f.Runs[0].Name)
	r := f.Runs[0]
	if r.Status != results.StatusFailed || !strings.Contains(r.Error.Raw(), "no request completed") || r.Summary.Requests.Failed != 4 {
		t.Errorf("run = %s %q with %d failed; want failed, no request completed, 4 failed", r.Status, r.Error, r.Summary.Requests.Failed)
	}
	if len(r.Asserts) != 0 {
		t.Errorf("asserts evaluated on a run with nothing measured: %+v", r.Asserts)
	}
	// each failure is in the per-request log with its kind and reason
	if r.Requests == nil || r.Requests.Len() != 4 || len(r.Requests.Failures) != 4 {
		t.Fatalf("request log %+v, want 4 requests, all failed", r.Requests)
	}
	for i, f := range r.Requests.Failures {
		if f.Index != i || f.Kind == "" || f.Reason == "" {
			t.Errorf("failure %d = %+v, want index %d with a kind and a reason", i, f, i)
		}
	}
}

// startSim serves the tiny simulator on a loopback port of its own, so the
// test can kill it; it returns the base URL and the server.
func startSim(t *testing.T) (string, *http.Server) {
	t.Helper()
	cfg, _, err := sim.ParseArgs([]string{"tiny", "--profile", "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String(), srv
}

// TestRunServerDiesMidway kills the server during the first run: that run
// is recorded as partial, the rest of the group as failed, the file is
// written and marked partial, and the error says the target went away.
func TestRunServerDiesMidway(t *testing.T) {
	url, srv := startSim(t)
	s := loadSuite(t, "tiny.hcl", nil)
	plan, err := s.Plan().Filter([]string{"chat", "sweep"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "results.json")
	measured := 0
	rec := &recorder{hook: func(e event.Event) {
		if e, ok := e.(event.RequestDone); ok && !e.Record.Warmup {
			measured++
			if measured == 5 {
				srv.Close() // closes the listener and every connection at once
			}
		}
	}}
	_, err = Run(context.Background(), s, Options{Plan: plan, OutputPath: out, TargetURL: url, Progress: rec})
	if !errors.Is(err, backend.ErrUnavailable) {
		t.Fatalf("Run error = %v, want one wrapping backend.ErrUnavailable", err)
	}
	f := readBack(t, out)
	if !f.Partial {
		t.Error("file not marked partial after the server died")
	}
	if f.Environment.TargetKind != "endpoint" {
		t.Errorf("target kind = %q, want endpoint under --target", f.Environment.TargetKind)
	}
	if len(f.Runs) != 3 {
		t.Fatalf("file has %d runs, want 3 (one cut short, two not run)", len(f.Runs))
	}
	if r := f.Runs[0]; r.Status != results.StatusPartial || !strings.Contains(r.Error.Raw(), "stopped responding") || r.Summary.Requests.Completed < 5 {
		t.Errorf("first run = %s %q, %d completed; want partial, stopped responding, at least 5", r.Status, r.Error, r.Summary.Requests.Completed)
	}
	for _, r := range f.Runs[1:] {
		if r.Status != results.StatusFailed || !strings.HasPrefix(r.Error.Raw(), "not run") {
			t.Errorf("run %s = %s %q, want failed: not run", r.Name, r.Status, r.Error)
		}
	}
}

// TestRunCancel cancels the context during a run: Run returns promptly
// with the context's error, the run is partial, the file is written and
// the server is stopped.
func TestRunCancel(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	measured := 0
	rec := &recorder{hook: func(e event.Event) {
		if e, ok := e.(event.RequestDone); ok && !e.Record.Warmup {
			if measured++; measured == 3 {
				cancel()
			}
		}
	}}
	_, err := Run(ctx, s, Options{OutputPath: out, Progress: rec})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	f := readBack(t, out)
	if !f.Partial || len(f.Runs) != 1 || f.Runs[0].Status != results.StatusPartial {
		t.Fatalf("file partial %v with runs %+v; want partial with one partial run", f.Partial, f.Runs)
	}
	if n := rec.count(); n["stopped"] != 1 || n["run"] != 1 {
		t.Errorf("events = %v, want the one server stopped and no run after the cancel", n)
	}
	assertStopped(t, rec.serverURLs())
}

// TestRunUnwritableOutput checks a results path that cannot be written
// fails before any server starts.
func TestRunUnwritableOutput(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	rec := &recorder{}
	out := t.TempDir() // a directory: no file can be renamed onto it
	if err := os.WriteFile(filepath.Join(out, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), s, Options{OutputPath: out, Progress: rec})
	if err == nil || !strings.Contains(err.Error(), "write results file") {
		t.Fatalf("Run error = %v, want a write error", err)
	}
	if n := rec.count(); n["starting"] != 0 {
		t.Errorf("%d servers started although the results could not be written", n["starting"])
	}
}

// TestRunPanicStopsServer checks a panic during a run still stops the
// server and leaves a results file marked partial, then carries on up.
func TestRunPanicStopsServer(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	out := filepath.Join(t.TempDir(), "results.json")
	rec := &recorder{hook: func(e event.Event) {
		if e, ok := e.(event.RunStarted); ok && e.Index == 1 {
			panic("boom")
		}
	}}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want the panic to reach the caller", p)
			}
		}()
		_, _ = Run(context.Background(), s, Options{OutputPath: out, Progress: rec})
	}()
	if n := rec.count(); n["stopped"] != 1 {
		t.Errorf("%d servers stopped after the panic, want 1", n["stopped"])
	}
	assertStopped(t, rec.serverURLs())
	f := readBack(t, out)
	if !f.Partial || len(f.Runs) != 1 {
		t.Errorf("file partial %v with %d runs, want partial with the one finished run", f.Partial, len(f.Runs))
	}
}

// slowStarter holds a start back until release is closed, then starts the
// target with backend.Default.
type slowStarter struct{ release <-chan struct{} }

func (s slowStarter) Start(ctx context.Context, spec runspec.Target, opts backend.StartOptions) (backend.Instance, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return backend.Default{}.Start(ctx, spec, opts)
}

// TestRunReportsSlowStart checks a target that takes long to start is
// reported as still starting, and that no such report follows it being up.
func TestRunReportsSlowStart(t *testing.T) {
	s := loadSuite(t, "tiny.hcl", nil)
	plan, err := s.Plan().Filter([]string{"chat"})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var once sync.Once
	rec := &recorder{hook: func(e event.Event) {
		if _, ok := e.(event.ServerWaiting); ok {
			once.Do(func() { close(release) }) // the start is let go only once it was reported as slow
		}
	}}
	_, err = Run(context.Background(), s, Options{Plan: plan, Starter: slowStarter{release}, Progress: rec, StartHeartbeat: time.Millisecond})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	waiting, ready := 0, -1
	for i, e := range rec.events {
		switch e := e.(type) {
		case event.ServerWaiting:
			waiting++
			if ready >= 0 {
				t.Errorf("ServerWaiting at event %d after ServerReady at %d", i, ready)
			}
			if e.Target != "simulator.sim" {
				t.Errorf("ServerWaiting names %q, want simulator.sim", e.Target)
			}
		case event.ServerReady:
			ready = i
		}
	}
	if waiting == 0 || ready < 0 {
		t.Errorf("%d ServerWaiting events, ServerReady at %d; want at least one before it", waiting, ready)
	}
}

// assertRecorded checks that err says, by its type, that runs of f record
// it (judge.RecordedError), so that the judge does not report it twice.
func assertRecorded(t *testing.T, f *results.File, err error, runs ...string) {
	t.Helper()
	var rec *judge.RecordedError
	if !errors.As(err, &rec) || !slices.Equal(rec.Runs, runs) {
		t.Errorf("Run error %v is not recorded in runs %q", err, runs)
	}
	j, jerr := judge.Judge(judge.Input{Current: f, Config: compare.DefaultConfig(), RunErr: err})
	if jerr != nil {
		t.Fatalf("Judge: %v", jerr)
	}
	for _, nj := range j.Comparison.NotJudged {
		if nj.Kind == compare.RunProblem {
			t.Errorf("the judge reports the recorded error again: %s", nj.Reason)
		}
	}
}
