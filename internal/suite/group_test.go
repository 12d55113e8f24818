package suite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmgate/llmgate/internal/plan"
)

const planSuite = `
server "vllm" {
  image = "vllm/vllm-openai:v0.11.0"
  model = "m"
}
simulator "sim" {}
defaults {
  target = server.vllm
  load {
    concurrency = 4
    requests    = 10
  }
}
scenario "a" {}
scenario "mem" {
  sweep { gpu_memory_utilization = [0.8, 0.9] }
  server_args = ["--gpu-memory-utilization", sweep.gpu_memory_utilization]
}
scenario "sim" { target = simulator.sim }
scenario "b" {}
scenario "mem2" {
  sweep { users = [1, 2] }
  server_args = ["--gpu-memory-utilization", 0.8]
}
`

func groupSummary(p *plan.Plan) []string {
	var out []string
	for _, g := range p.Groups {
		var names []string
		for _, r := range g.Runs {
			names = append(names, r.Name)
		}
		out = append(out, g.Target.Ref()+" "+strings.Join(g.ServerArgs, " ")+": "+strings.Join(names, " "))
	}
	return out
}

func TestPlanGroupsByServer(t *testing.T) {
	s := mustLoad(t, planSuite, Options{})
	want := []string{
		"server.vllm : a b",
		"server.vllm --gpu-memory-utilization 0.8: mem[gpu_memory_utilization=0.8] mem2[users=1] mem2[users=2]",
		"server.vllm --gpu-memory-utilization 0.9: mem[gpu_memory_utilization=0.9]",
		"simulator.sim : sim",
	}
	if diff := cmp.Diff(want, groupSummary(s.Plan())); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if n := len(s.Plan().Runs()); n != 7 {
		t.Errorf("%d runs", n)
	}
}

func TestPlanFilter(t *testing.T) {
	s := mustLoad(t, planSuite, Options{})
	tests := []struct {
		name    string
		only    []string
		want    []string
		wantErr string
	}{
		// No filter keeps the plan.
		{name: "none", only: nil, want: groupSummary(s.Plan())},
		// A scenario name keeps all its runs.
		{name: "scenario", only: []string{"mem"}, want: []string{
			"server.vllm --gpu-memory-utilization 0.8: mem[gpu_memory_utilization=0.8]",
			"server.vllm --gpu-memory-utilization 0.9: mem[gpu_memory_utilization=0.9]"}},
		// A full run name, brackets and all, is literal.
		{name: "run name", only: []string{"mem2[users=2]"}, want: []string{"server.vllm --gpu-memory-utilization 0.8: mem2[users=2]"}},
		// * matches any run of characters.
		{name: "wildcard", only: []string{"mem*=0.9]", "s*"}, want: []string{
			"server.vllm --gpu-memory-utilization 0.9: mem[gpu_memory_utilization=0.9]",
			"simulator.sim : sim"}},
		// A pattern matching nothing is an error listing what exists.
		{name: "typo", only: []string{"a", "memm"}, wantErr: `no run or scenario matches "memm"; the suite has: a, b, mem, mem2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.Plan().Filter(tt.only)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, groupSummary(p)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanWriteText(t *testing.T) {
	s := mustLoad(t, planSuite, Options{})
	var b strings.Builder
	if err := s.Plan().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"7 run(s) in 4 server group(s)",
		"group 2: server.vllm (image vllm/vllm-openai:v0.11.0, model m, args --gpu-memory-utilization 0.8)",
		"  mem2[users=1]\n    load:     closed loop, 4 concurrent, 10 requests\n    workload: random, 1024 in / 128 out tokens",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, b.String())
		}
	}
}
