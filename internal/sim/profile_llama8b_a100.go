package sim

import "time"

// Llama 3.1 8B Instruct in BF16 on one NVIDIA A100 80GB (SXM4).
//
// Public figures:
//   - NVIDIA A100 datasheet: A100 80GB SXM, 2,039 GB/s HBM2e bandwidth,
//     312 TFLOPS dense BF16. The driver reports about 79.2 GiB total.
//   - meta-llama/Llama-3.1-8B model card and config.json: see
//     profile_llama8b_h100.go (8.03B parameters, 32 layers, 8 KV heads of 128).
//   - vLLM's defaults for A100 and smaller GPUs (EngineArgs): max_num_seqs 256,
//     max_num_batched_tokens 2048 for the API server.
//
// Estimates: ~80% of HBM bandwidth in decode, ~60% of peak FLOPS in prefill,
// ~1 ms fixed step overhead. Batch-1 TPOT comes out at ~10.8 ms (~93 tokens/s),
// in line with commonly reported 10-12 ms for this model on one A100.
var llama8bA100 = withLlama8B(&Profile{
	Name:        "llama-3.1-8b-a100",
	Description: "Llama 3.1 8B Instruct, BF16, one A100 80GB",
	GPUName:     "NVIDIA A100-SXM4-80GB (simulated)",

	GPUMemoryBytes:      gibs(79.2),
	MemBandwidth:        2.039e12,
	PeakFLOPS:           312e12,
	BandwidthEfficiency: 0.80,
	ComputeEfficiency:   0.60,

	ActivationBytes: gibs(0.6),
	NonTorchBytes:   gibs(1.0),

	DefaultTP:                  1,
	DefaultMaxNumSeqs:          256,
	DefaultMaxNumBatchedTokens: 2048,

	StepOverhead:          1000 * time.Microsecond,
	PerSeqOverhead:        10 * time.Microsecond,
	TPLayerLatency:        10 * time.Microsecond,
	InterconnectBandwidth: 240e9,
	EPCommFactor:          1.0,

	StructuredStepOverhead: 700 * time.Microsecond,
	StructuredPerSeq:       50 * time.Microsecond,

	MeanOutputTokens: 256,
})

func init() { registerProfile(llama8bA100) }
