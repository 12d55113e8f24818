package progress

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/internal/golden"
	"github.com/llmgate/llmgate/internal/progress/event"
	"github.com/llmgate/llmgate/results"
)

// clock is a fake wall clock the script advances.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// script plays a two-scenario plan with one failing assert into p,
// advancing c by 100 ms per request.
func script(p event.Progress, c *clock) {
	p.Report(event.PlanStarted{Suite: "demo", Groups: 2, Runs: 2})
	p.Report(event.ServerStarting{Group: 0, Groups: 2, Target: "simulator.sim", Kind: "simulator", Scenario: "chat", Runs: []string{"chat"}})
	p.Report(event.ServerReady{Group: 0, Target: "simulator.sim", Took: 20 * time.Millisecond, URL: "http://127.0.0.1:4000", Model: "tiny"})
	p.Report(event.ServerDiscovered{Group: 0, Target: "simulator.sim", Missing: []results.MissingFeature{{Feature: "/metrics", Cost: "no server.* metrics"}}})
	p.Report(event.RunStarted{Index: 0, Runs: 2, Name: "chat", Scenario: "chat", Requests: 20, Warmup: 2, Concurrency: 4})
	for i := range 22 {
		c.t = c.t.Add(100 * time.Millisecond)
		rec := results.Record{Seq: i, Warmup: i < 2, Sent: time.Duration(i) * 25 * time.Millisecond,
			TTFT: time.Duration(10+i) * time.Millisecond, E2EL: 100 * time.Millisecond, OutputTokens: 16}
		if i == 7 {
			rec.Error, rec.ErrorKind = "http 500: boom", "http"
		}
		p.Report(event.RequestDone{Record: rec})
	}
	p.Report(event.RunFinished{Index: 0, Runs: 2, Run: &results.Run{
		Name: "chat", Scenario: "chat", Status: results.StatusOK,
		Summary: results.Summary{
			Requests:        results.Requests{Completed: 19, Failed: 1, EmptyAnswers: 3},
			DurationSeconds: 0.575,
			Throughput:      results.Throughput{Requests: 34.8},
			TTFT:            results.Stats{N: 16, P50: 21.5, P95: 30.05},
			TPOT:            results.Stats{N: 16, P50: 5.9},
		},
		Asserts: []results.AssertResult{
			{Name: "fast", Passed: true, Condition: "ttft.p95 < 500"},
			{Name: "clean", Passed: false, Condition: "error_rate == 0", Message: "no errors allowed (demo.hcl:12: error_rate == 0, with error_rate = 0.05)",
				Values: map[string]float64{"error_rate": 0.05}, File: "demo.hcl", Line: 12, Column: 17},
		},
	}})
	p.Report(event.ServerStopped{Group: 0, Target: "simulator.sim", Took: 3 * time.Millisecond})
	p.Report(event.ServerStarting{Group: 1, Groups: 2, Target: "server.vllm", Kind: "server", ServerArgs: []string{"--max-num-seqs", "8"}, Scenario: "batch", Runs: []string{"batch"}})
	p.Report(event.ServerReady{Group: 1, Target: "server.vllm", Took: 2 * time.Second, Err: errors.New("container exited with code 1\nlast 1 log lines:\n  error: unrecognized argument")})
	p.Report(event.RunFinished{Index: 1, Runs: 2, Run: &results.Run{Name: "batch", Scenario: "batch", Status: results.StatusFailed,
		Error: "start server.vllm: container exited with code 1\nlast 2 log lines:\n  error: unrecognized argument\n  usage: vllm serve"}})
	p.Report(event.PlanFinished{})
}

// TestRenderers compares each renderer's output for the same script with
// its golden file; run with -update to rewrite them after a deliberate change.
func TestRenderers(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		make   func(w *bytes.Buffer, c *clock) event.Progress
	}{
		// Plain lines, as in a CI log: one line per 10 % of the run.
		{name: "lines", golden: "lines.golden", make: func(w *bytes.Buffer, c *clock) event.Progress {
			return &text{w: w, now: c.now}
		}},
		// The live bar on a terminal, redrawn in place with \r.
		{name: "terminal", golden: "terminal.golden", make: func(w *bytes.Buffer, c *clock) event.Progress {
			return &text{w: w, live: true, now: c.now}
		}},
		// Under GitHub Actions: plain lines inside one group per scenario.
		{name: "github", golden: "github.golden", make: func(w *bytes.Buffer, c *clock) event.Progress {
			return NewGitHub(w, &text{w: w, now: c.now})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			script(tt.make(&buf, c), c)
			golden.Check(t, filepath.Join("testdata", tt.golden), buf.String())
		})
	}
}

// TestTerminalRedrawRate checks the bar is redrawn at most four times a
// second however fast requests finish.
func TestTerminalRedrawRate(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := &text{w: &buf, live: true, now: c.now}
	p.Report(event.RunStarted{Name: "r", Runs: 1, Requests: 1000})
	for i := range 999 { // 999 requests over 9.99 s: the last one (100 %) would force a draw
		c.t = c.t.Add(10 * time.Millisecond)
		p.Report(event.RequestDone{Record: results.Record{Seq: i, Sent: time.Duration(i) * 10 * time.Millisecond, E2EL: time.Millisecond}})
	}
	draws := strings.Count(buf.String(), "\r  [")
	// One draw at the start, then one per 250 ms of 9.99 s.
	if draws < 30 || draws > 41 {
		t.Errorf("bar drawn %d times over 10 s, want about 40 (at most 4 a second)", draws)
	}
}

// TestGitHubGroupsBalanced checks every ::group:: is closed and no group
// is nested, including when the plan ends inside a scenario.
func TestGitHubGroupsBalanced(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	script(NewGitHub(&buf, &text{w: &buf, now: c.now}), c)
	depth := 0
	for _, line := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "::group::"):
			depth++
		case line == "::endgroup::":
			depth--
		}
		if depth < 0 || depth > 1 {
			t.Fatalf("groups nested or closed twice at line %q:\n%s", line, buf.String())
		}
	}
	if depth != 0 {
		t.Errorf("a group is left open:\n%s", buf.String())
	}
	for _, want := range []string{"::group::Scenario chat\n", "::group::Scenario batch\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestLinesEndpoint checks an endpoint is checked, not started or stopped.
func TestLinesEndpoint(t *testing.T) {
	var buf bytes.Buffer
	p := NewLines(&buf)
	p.Report(event.ServerStarting{Target: "http://127.0.0.1:8000", Kind: "endpoint", Scenario: "chat"})
	p.Report(event.ServerReady{Target: "http://127.0.0.1:8000", URL: "http://127.0.0.1:8000", Model: "m"})
	p.Report(event.ServerStopped{Target: "http://127.0.0.1:8000"})
	p.Report(event.ServerStarting{Target: "endpoint.down", Kind: "endpoint", ServerArgs: []string{"--max-num-seqs", "2"}})
	p.Report(event.ServerReady{Target: "endpoint.down", Err: errors.New("connection refused")})
	want := "Checking http://127.0.0.1:8000 (endpoint)\n" +
		"http://127.0.0.1:8000 answers, model m\n" +
		"Checking endpoint.down (endpoint) (server_args --max-num-seqs 2 ignored: it is already running)\n" +
		"endpoint.down cannot be used: connection refused\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestLinesConfirmStarted checks the gate's confirming rerun is announced
// on a line of its own, naming the runs, before the rerun's own lines.
func TestLinesConfirmStarted(t *testing.T) {
	var buf bytes.Buffer
	p := NewLines(&buf)
	p.Report(event.ConfirmStarted{Runs: []string{"chat", "sweep[concurrency=8]"}})
	want := "\nllmgate: 2 run(s) moved close to or past their band without a clear call; running them once more to confirm: chat, sweep[concurrency=8]\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestTerminalFitsEightyColumns checks the live line never wraps, which
// would break redrawing it in place, even with large counts and failures.
func TestTerminalFitsEightyColumns(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	p := &text{w: &buf, live: true, now: c.now}
	p.Report(event.RunStarted{Name: "r", Runs: 1, Requests: 123456, Warmup: 500})
	for i := range 2000 {
		c.t = c.t.Add(time.Second)
		rec := results.Record{Seq: i, Warmup: i < 500, Sent: time.Duration(i) * time.Millisecond, TTFT: 1234 * time.Millisecond, E2EL: 99 * time.Second}
		if i%3 == 0 {
			rec.Error = "timeout"
		}
		p.Report(event.RequestDone{Record: rec})
	}
	for _, line := range strings.Split(buf.String(), "\r") {
		line = strings.TrimSuffix(line, "\x1b[K")
		if strings.Contains(line, "\n") {
			continue // the run's header line
		}
		if len(line) > liveWidth {
			t.Fatalf("live line is %d columns, more than %d: %q", len(line), liveWidth, line)
		}
	}
	if !strings.Contains(buf.String(), "failed") {
		t.Errorf("failures not shown:\n%q", buf.String()[len(buf.String())-200:])
	}
}

// TestLinesServerWaiting checks a slow start is reported with its elapsed time.
func TestLinesServerWaiting(t *testing.T) {
	var buf bytes.Buffer
	p := NewLines(&buf)
	p.Report(event.ServerWaiting{Target: "server.vllm", Elapsed: 90 * time.Second})
	want := "server.vllm is still starting after 90.0s (pulling the image or loading the model; startup_timeout bounds the wait)\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestCleanRunLinesFit checks the lines of a clean run stay within 100
// columns even with a sweep point's long name and large figures, so they
// do not wrap in a terminal.
func TestCleanRunLinesFit(t *testing.T) {
	var buf bytes.Buffer
	p := NewLines(&buf)
	p.Report(event.RunFinished{Index: 11, Runs: 12, Run: &results.Run{
		Name: "sweep[concurrency=128]", Status: results.StatusOK,
		Summary: results.Summary{
			Requests:        results.Requests{Completed: 10000},
			DurationSeconds: 1234.5,
			Throughput:      results.Throughput{Requests: 1234.5},
			TTFT:            results.Stats{P50: 1234.5, P95: 12345.6},
			TPOT:            results.Stats{P50: 123.4},
		},
		Asserts: []results.AssertResult{{Name: "a", Passed: true}, {Name: "b", Passed: true}, {Name: "c", Passed: true}},
	}})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want the outcome and the figures:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		if len(l) > 100 {
			t.Errorf("line of %d columns, more than 100: %q", len(l), l)
		}
	}
}

// TestServerStartErrorWhole checks why a server did not start is printed
// whole on its line, however long Docker's message (the cause comes last),
// on a terminal and in logs, and that a start's note is printed on a line
// of its own.
func TestServerStartErrorWhole(t *testing.T) {
	msg := `start server.vllm: image vllm/vllm-openai:v0.11.0 is not on this machine and could not be pulled: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 10.255.255.53:53: no such host; pull it where its registry can be reached (docker pull vllm/vllm-openai:v0.11.0, then docker save | docker load here), or name an image this machine has (docker images)`
	for name, p := range map[string]func(*bytes.Buffer) event.Progress{
		"lines":    func(b *bytes.Buffer) event.Progress { return NewLines(b) },
		"terminal": func(b *bytes.Buffer) event.Progress { return NewTerminal(b) },
	} {
		var buf bytes.Buffer
		r := p(&buf)
		r.Report(event.ServerNote{Target: "server.vllm", Text: "going on without the reaper"})
		r.Report(event.ServerReady{Target: "server.vllm", Took: 300 * time.Millisecond, Err: errors.New(msg + "\nlast 1 log lines:\n  x")})
		want := "server.vllm: going on without the reaper\nserver.vllm did not start after 0.3s: " + msg + "\n"
		if diff := cmp.Diff(want, buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
