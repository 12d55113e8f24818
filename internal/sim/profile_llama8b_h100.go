package sim

import "time"

// Llama 3.1 8B Instruct in BF16 on one NVIDIA H100 80GB HBM3 (SXM5).
//
// Public figures:
//   - NVIDIA H100 Tensor Core GPU datasheet: H100 SXM 80 GB HBM3, 3.35 TB/s
//     memory bandwidth, 989 TFLOPS dense BF16 (1,979 with sparsity).
//   - The driver reports about 79.1 GiB of it as total memory (what vLLM's
//     memory profiler starts from).
//   - meta-llama/Llama-3.1-8B model card and config.json: 8.03B parameters,
//     32 layers, hidden size 4096, 32 attention heads, 8 KV heads (GQA),
//     head dim 128, vocabulary 128,256, context 131,072. BF16 weights are
//     16.06 GB, which vLLM logs as "Loading model weights took 14.99 GiB".
//   - vLLM's defaults for GPUs with >= 70 GiB other than A100 (EngineArgs):
//     max_num_seqs 1024 and max_num_batched_tokens 8192 for the API server.
//
// Estimates (not measured by us): decode kernels reach ~80% of HBM bandwidth
// and prefill ~60% of peak FLOPS; ~0.8 ms fixed step overhead with CUDA graphs.
// Together they give a batch-1 TPOT of ~6.8 ms (~147 tokens/s) and a TTFT of
// ~30 ms for a 1,000-token prompt, in line with commonly reported vLLM figures
// for this model on one H100 (TPOT 6-8 ms at low load).
var llama8bH100 = withLlama8B(&Profile{
	Name:        "llama-3.1-8b-h100",
	Description: "Llama 3.1 8B Instruct, BF16, one H100 80GB HBM3 (default)",
	GPUName:     "NVIDIA H100 80GB HBM3 (simulated)",

	GPUMemoryBytes:      gibs(79.1),
	MemBandwidth:        3.35e12,
	PeakFLOPS:           989e12,
	BandwidthEfficiency: 0.80,
	ComputeEfficiency:   0.60,

	ActivationBytes: gibs(1.5),
	NonTorchBytes:   gibs(1.0),

	DefaultTP:                  1,
	DefaultMaxNumSeqs:          1024,
	DefaultMaxNumBatchedTokens: 8192,

	StepOverhead:          800 * time.Microsecond,
	PerSeqOverhead:        8 * time.Microsecond,
	TPLayerLatency:        8 * time.Microsecond,
	InterconnectBandwidth: 450e9,
	EPCommFactor:          1.0,

	StructuredStepOverhead: 600 * time.Microsecond,
	StructuredPerSeq:       40 * time.Microsecond,

	MeanOutputTokens: 256,
})

func init() { registerProfile(llama8bH100) }

// withLlama8B fills in Llama 3.1 8B Instruct's architecture (config.json,
// cited above) on p, so that its GPU profiles share one copy of it.
func withLlama8B(p *Profile) *Profile {
	p.ModelName = "meta-llama/Llama-3.1-8B-Instruct"
	p.Params, p.ActiveParams, p.WeightBytesPerParam = 8_030_000_000, 8_030_000_000, 2
	p.Layers, p.KVHeads, p.HeadDim, p.Hidden = 32, 8, 128, 4096
	p.Vocab, p.MaxModelLen = 128256, 131072
	return p
}
