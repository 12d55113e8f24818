package runner

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/internal/backend"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// TestSpec checks how a group becomes the target spec and start options the
// Starter gets.
func TestSpec(t *testing.T) {
	vllm := &plan.Target{Target: runspec.Target{Kind: "server", Name: "vllm", Image: "vllm/vllm-openai:v0.11.0", Model: "m",
		Args: []string{"--max-num-seqs", "8"}, GPUs: "all", StartupTimeout: time.Minute, APIKey: "k"}}
	sim := &plan.Target{Target: runspec.Target{Kind: "simulator", Name: "sim", Profile: "tiny", Model: "m"}}
	tests := []struct {
		name      string
		opts      Options
		plan      *plan.Plan
		group     int
		want      runspec.Target
		wantStart backend.StartOptions
	}{
		// A server gets the block's args then the group's server_args, and a log beside the results.
		{name: "server", opts: Options{OutputPath: "out/results.json"},
			plan: &plan.Plan{Groups: []*plan.Group{{Target: vllm, ServerArgs: []string{"--gpu-memory-utilization", "0.8"}}}},
			want: runspec.Target{Kind: "server", Name: "vllm", Image: "vllm/vllm-openai:v0.11.0", Model: "m", GPUs: "all",
				Args:   []string{"--max-num-seqs", "8", "--gpu-memory-utilization", "0.8"},
				APIKey: "k", StartupTimeout: time.Minute},
			wantStart: backend.StartOptions{LogPath: filepath.Join("out", "results.vllm.log")}},
		// Several groups on one server block number their logs; --log-dir wins.
		{name: "numbered logs", opts: Options{OutputPath: "results.json", LogDir: "logs"}, group: 1,
			plan: &plan.Plan{Groups: []*plan.Group{{Target: vllm}, {Target: vllm, ServerArgs: []string{"--x", "1"}}}},
			want: runspec.Target{Kind: "server", Name: "vllm", Image: "vllm/vllm-openai:v0.11.0", Model: "m", GPUs: "all",
				Args:   []string{"--max-num-seqs", "8", "--x", "1"},
				APIKey: "k", StartupTimeout: time.Minute},
			wantStart: backend.StartOptions{LogPath: filepath.Join("logs", "results.vllm-2.log")}},
		// The simulator keeps its profile and has no log file.
		{name: "simulator", plan: &plan.Plan{Groups: []*plan.Group{{Target: sim}}},
			want: runspec.Target{Kind: "simulator", Name: "sim", Model: "m", Profile: "tiny"}},
		// --target replaces any target with an endpoint, keeping the model and key.
		{name: "target override", opts: Options{TargetURL: "http://127.0.0.1:9", OutputPath: "results.json"},
			plan: &plan.Plan{Groups: []*plan.Group{{Target: vllm}}},
			want: runspec.Target{Kind: "endpoint", Name: "target", URL: "http://127.0.0.1:9", Model: "m", APIKey: "k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Plan = tt.plan
			r := newRunner(&plan.Suite{Name: "s"}, tt.opts)
			g := tt.plan.Groups[tt.group]
			got := r.spec(g)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStart, r.startOptions(tt.group, g, got)); diff != "" {
				t.Errorf("start options (-want +got):\n%s", diff)
			}
		})
	}
	// The group's server args never reach the block's own args.
	if got := vllm.Args; len(got) != 2 {
		t.Errorf("the server block's args became %q: spec appended to them in place", got)
	}
}
