package judge

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// TestRecordedRunErrors checks which of a run's error the judge reports:
// what a run of the file records (a RecordedError) once, in that run's
// problem, and everything else as a problem of its own. The judge used to
// match the error's text against the runs' errors, so that "stop
// server.vllm: timeout" passed for recorded when run chat had failed with
// "timeout", and an error joined with a recorded one was never reported.
func TestRecordedRunErrors(t *testing.T) {
	cur := &results.File{Version: results.SchemaVersion, Runs: []results.Run{
		{Name: "chat", Scenario: "chat", Status: results.StatusFailed, Error: "timeout"},
		{Name: "long", Scenario: "long", Status: results.StatusOK},
	}}
	chat := Recorded(errors.New("run chat: timeout"), "chat")
	stop := errors.New("stop server.vllm: timeout")
	tests := []struct {
		name   string
		runErr error
		want   []string // the run problems reported, beside the failed run
	}{
		{name: "none"},
		// the old bug: "timeout" is in the text, yet no run records it
		{name: "unrelated", runErr: stop, want: []string{"stop server.vllm: timeout"}},
		{name: "recorded", runErr: chat},
		{name: "recorded, wrapped", runErr: fmt.Errorf("gate: %w", chat)},
		// the old bug again: one recorded error hid all it was joined with
		{name: "joined", runErr: errors.Join(chat, stop), want: []string{"stop server.vllm: timeout"}},
		{name: "all joined recorded", runErr: errors.Join(chat, Recorded(errors.New("not run: x"), "chat"))},
		// a join under words of its own is kept whole, its words with it
		{name: "wrapped join", runErr: fmt.Errorf("interrupted: %w", errors.Join(chat, stop)), want: []string{"interrupted: run chat: timeout\nstop server.vllm: timeout"}},
		{name: "several %w", runErr: fmt.Errorf("%w; then %w", chat, stop), want: []string{"run chat: timeout; then stop server.vllm: timeout"}},
		// a mark with a sentinel of its own (as backend.Unavailable) goes
		// inside Recorded: outside, its sentinel is not recorded
		{name: "marked, then recorded", runErr: Recorded(marked{errors.New("run chat: timeout")}, "chat")},
		{name: "recorded, then marked", runErr: marked{chat}, want: []string{"run chat: timeout"}},
		// a run that records nothing, or is not in the file, records nothing
		{name: "ok run", runErr: Recorded(stop, "long"), want: []string{"stop server.vllm: timeout"}},
		{name: "missing run", runErr: Recorded(stop, "chat", "gone"), want: []string{"stop server.vllm: timeout"}},
		{name: "no run named", runErr: Recorded(stop), want: []string{"stop server.vllm: timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Judge(Input{Current: cur, Config: compare.DefaultConfig(), RunErr: tt.runErr})
			if err != nil {
				t.Fatalf("Judge: %v", err)
			}
			var got []string
			failedRun := 0
			for _, nj := range j.Comparison.NotJudged {
				switch nj.Kind {
				case compare.RunProblem:
					got = append(got, nj.Reason.Raw())
				case compare.CurrentInvalid:
					failedRun++
				}
			}
			if !slices.Equal(got, tt.want) || failedRun != 1 {
				t.Errorf("run problems %q and %d failed runs, want %q and 1", got, failedRun, tt.want)
			}
			if j.Decision != compare.DecisionError || len(j.Problems) != 1+len(tt.want) {
				t.Errorf("verdict %q with problems %v, want error with %d", j.Decision, j.Problems, 1+len(tt.want))
			}
		})
	}
}

// TestRecordedUnwraps checks that a RecordedError keeps what it wraps
// visible to errors.Is and its text unchanged.
func TestRecordedUnwraps(t *testing.T) {
	base := errors.New("unreachable")
	err := Recorded(fmt.Errorf("run chat: %w", base), "chat")
	if !errors.Is(err, base) || err.Error() != "run chat: unreachable" {
		t.Errorf("Recorded: %q, errors.Is %v; want the text unchanged and the cause kept", err, errors.Is(err, base))
	}
	if Recorded(nil, "chat") != nil {
		t.Error("Recorded(nil) is not nil")
	}
}

// errMarked is marked's sentinel.
var errMarked = errors.New("marked")

// marked marks an error with errMarked without changing its text, as
// backend.Unavailable does.
type marked struct{ err error }

func (m marked) Error() string   { return m.err.Error() }
func (m marked) Unwrap() []error { return []error{m.err, errMarked} }
