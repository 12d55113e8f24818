package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// simStarter starts the tiny simulator for a server spec, with the spec's
// args, records every start's GPUs and args, and notes a start on GPUs
// that a running server holds.
type simStarter struct {
	mu     sync.Mutex
	starts []string // "GPUS ARGS"
	inUse  map[string]bool
	shared []string
}

func (s *simStarter) Start(ctx context.Context, spec runspec.Target, opts backend.StartOptions) (backend.Instance, error) {
	s.mu.Lock()
	s.starts = append(s.starts, spec.GPUs+" "+strings.Join(spec.Args, " "))
	if s.inUse == nil {
		s.inUse = map[string]bool{}
	}
	if s.inUse[spec.GPUs] {
		s.shared = append(s.shared, spec.GPUs)
	}
	s.inUse[spec.GPUs] = true
	s.mu.Unlock()
	inst, err := backend.Default{}.Start(ctx, runspec.Target{Kind: runspec.KindSimulator, Name: spec.Name, Profile: "tiny", Args: spec.Args}, backend.StartOptions{})
	if err != nil {
		return nil, err
	}
	return &heldInstance{Instance: inst, release: func() {
		s.mu.Lock()
		delete(s.inUse, spec.GPUs)
		s.mu.Unlock()
	}}, nil
}

// heldInstance releases its GPUs in the simStarter when stopped.
type heldInstance struct {
	backend.Instance
	release func()
}

func (h *heldInstance) Stop(ctx context.Context) error {
	h.release()
	return h.Instance.Stop(ctx)
}

// TestRunABServerModes runs a server suite in each A/B mode through a
// Starter that serves the simulator, and checks which server starts with
// which GPUs when: alternate starts the side of every block, together each
// side once, crossover each side on its own GPUs and again on the other's
// halfway through each run.
func TestRunABServerModes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs A/B gates on both server modes in real time (about 15 s): full run only")
	}
	for _, c := range []struct {
		mode plan.ABMode
		want []string // starts: side's GPUs (0 baseline, 1 candidate) and slowdown
	}{
		// two runs of ABBA, a start per block
		{plan.ABAlternate, []string{"0 1", "1 1.5", "1 1.5", "0 1", "0 1", "1 1.5", "1 1.5", "0 1"}},
		{plan.ABTogether, []string{"0 1", "1 1.5"}},
		// run 1: A on 0, B on 1, then both down and B on 0, A on 1 for
		// the second half; run 2 starts as run 1 ended and swaps back
		// halfway: one swap a run
		{plan.ABCrossover, []string{"0 1", "1 1.5", "0 1.5", "1 1", "1 1.5", "0 1"}},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			base := loadSuite(t, "ab_server.hcl", map[string]string{"mode": string(c.mode), "gpus": "device=0", "slowdown": "1"})
			cand := loadSuite(t, "ab_server.hcl", map[string]string{"mode": string(c.mode), "gpus": "device=1", "slowdown": "1.5"})
			st := &simStarter{}
			rec := &recorder{}
			cf, bf, err := RunAB(context.Background(), cand, Options{Starter: st, Progress: rec}, ABOptions{Baseline: base})
			if err != nil {
				t.Fatalf("RunAB: %v", err)
			}
			var got []string
			for _, s := range st.starts {
				var gpus, flag, slow string
				fmt.Sscan(s, &gpus, &flag, &slow)
				got = append(got, strings.TrimPrefix(gpus, "device=")+" "+slow)
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("starts %q, want %q", got, c.want)
			}
			for i := range cf.Runs {
				// invalid is allowed: a loaded machine may fail a block's
				// self-checks; this test is about the servers
				if cf.Runs[i].Status == "failed" || bf.Runs[i].Status == "failed" || len(cf.Runs[i].Blocks) != 2 {
					t.Errorf("run %s: %s/%s %v %v, %d blocks", cf.Runs[i].Name, bf.Runs[i].Status, cf.Runs[i].Status, bf.Runs[i].InvalidReasons, cf.Runs[i].InvalidReasons, len(cf.Runs[i].Blocks))
				}
			}
			if len(st.shared) > 0 {
				t.Errorf("servers started on GPUs another server held: %v", st.shared)
			}
			if cf.AB.Modes["vllm"] != c.mode {
				t.Errorf("mode recorded %v, want %s", cf.AB.Modes, c.mode)
			}
			if n := rec.count(); n["starting"] != len(c.want) || n["stopped"] != len(c.want) {
				t.Errorf("events %v: want %d starts and stops", n, len(c.want))
			}
			assertStopped(t, rec.serverURLs())
		})
	}
}

// TestRunABCrossoverNeedsDisjointGPUs refuses a crossover whose sides
// share a GPU, before any server starts.
func TestRunABCrossoverNeedsDisjointGPUs(t *testing.T) {
	base := loadSuite(t, "ab_server.hcl", map[string]string{"mode": "crossover", "gpus": "0,1"})
	cand := loadSuite(t, "ab_server.hcl", map[string]string{"mode": "crossover", "gpus": "1,2"})
	st := &simStarter{}
	cf, _, err := RunAB(context.Background(), cand, Options{Starter: st}, ABOptions{Baseline: base})
	if err == nil || !strings.Contains(err.Error(), "both sides use GPU 1") || len(st.starts) != 0 {
		t.Fatalf("err %v, %d starts", err, len(st.starts))
	}
	if len(cf.Runs) != 2 || cf.Runs[0].Status != "failed" {
		t.Fatalf("runs %+v, want both failed", cf.Runs)
	}
	assertRecorded(t, cf, err, cf.Runs[0].Name, cf.Runs[1].Name)
}
