package report

import (
	"fmt"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/results"
)

// fixture builds a baseline and a current file with a chat run that
// regressed, a concurrency sweep, a run only in each file and a failed
// assert, and compares them with the default configuration.
func fixture() (base, cur *results.File, c *compare.Comparison) {
	mk := func(slow float64, seed uint64, extra string) []comparetest.RunSpec {
		specs := []comparetest.RunSpec{{Name: "chat", TTFT: 120 * slow, TPOT: 9, E2EL: 2000, OutTokPerSec: 1800, ReqPerSec: 4, CV: 0.1, N: 400, Seed: seed}}
		for i, conc := range []int{1, 8, 16, 32} {
			specs = append(specs, comparetest.RunSpec{
				Name: fmt.Sprintf("sweep[concurrency=%d]", conc), Scenario: "sweep", Params: map[string]string{"concurrency": fmt.Sprint(conc)},
				TTFT: 80 * float64(i+1) * slow, TPOT: 8 + float64(i), E2EL: 1500 + 300*float64(i), OutTokPerSec: 200 * float64(conc) / slow,
				ReqPerSec: float64(conc) / 2, CV: 0.1, N: 300, Seed: seed + uint64(10*i+1)})
		}
		specs = append(specs, comparetest.RunSpec{Name: extra, TTFT: 100, TPOT: 9, E2EL: 1800, OutTokPerSec: 900, ReqPerSec: 3, CV: 0.1, N: 200, Seed: seed + 100})
		return specs
	}
	base = comparetest.File(results.Environment{Image: "vllm/vllm-openai:v0.10.2", VLLMVersion: "0.10.2", GPU: "NVIDIA H100 80GB HBM3", Model: "meta-llama/Llama-3.1-8B-Instruct", GitSHA: "aaaaaaa"},
		mk(1, 1, "retired")...)
	curSpecs := mk(1.3, 1000, "bursty")
	curSpecs[0].Asserts = []results.AssertResult{{Name: "ttft_interactive", Passed: false, Condition: "ttft.p95 < 150", Message: "P95 TTFT must stay under 150 ms for chat"}}
	cur = comparetest.File(results.Environment{Image: "vllm/vllm-openai:v0.11.0", VLLMVersion: "0.11.0", GPU: "NVIDIA H100 80GB HBM3", Model: "meta-llama/Llama-3.1-8B-Instruct", GitSHA: "bbbbbbb"},
		curSpecs...)
	return base, cur, compare.Compare(base, cur, compare.DefaultConfig())
}
