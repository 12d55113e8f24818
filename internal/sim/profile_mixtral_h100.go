package sim

import "time"

// Mixtral 8x7B Instruct v0.1 in BF16 on two NVIDIA H100 80GB HBM3 with
// tensor parallelism 2 (the weights, 93.4 GB, do not fit one GPU).
//
// Public figures:
//   - Mistral AI, "Mixtral of experts" (Dec 2023) and the model card:
//     46.7B total parameters, 12.9B used per token; 8 experts, 2 per token.
//   - config.json: 32 layers, hidden size 4096, FFN size 14,336, 32 attention
//     heads, 8 KV heads, head dim 128, vocabulary 32,000, context 32,768.
//     Experts hold 3 x 4096 x 14336 x 8 x 32 = 45.1B parameters.
//   - H100 SXM 80 GB: 3.35 TB/s, 989 TFLOPS dense BF16 (datasheet); NVLink 4
//     900 GB/s per GPU (we assume ~450 GB/s all-reduce bus bandwidth).
//
// MoE cost model: a step reads the non-expert weights plus the experts its
// tokens route to; with top-2 of 8 a batch of n tokens touches a fraction
// 1 - (6/8)^n of the experts, so small batches read ~25% of the experts and
// large ones all of them. Estimates as for the Llama profiles (80% bandwidth,
// 60% FLOPS) plus two ~8 us all-reduces per layer. Batch-1 TPOT comes out at
// ~6.3 ms; commonly reported figures for Mixtral on 2xH100 are 6-10 ms.
var mixtralH100 = &Profile{
	Name:        "mixtral-8x7b-h100",
	Description: "Mixtral 8x7B Instruct (MoE), BF16, two H100 80GB HBM3 (TP=2)",
	ModelName:   "mistralai/Mixtral-8x7B-Instruct-v0.1",
	GPUName:     "NVIDIA H100 80GB HBM3 (simulated)",

	GPUMemoryBytes:      gibs(79.1),
	MemBandwidth:        3.35e12,
	PeakFLOPS:           989e12,
	BandwidthEfficiency: 0.80,
	ComputeEfficiency:   0.55,

	Params:              46_700_000_000,
	ActiveParams:        12_900_000_000,
	ExpertParams:        45_100_000_000,
	Experts:             8,
	ExpertsPerToken:     2,
	WeightBytesPerParam: 2,
	Layers:              32,
	KVHeads:             8,
	HeadDim:             128,
	Hidden:              4096,
	Vocab:               32000,
	MaxModelLen:         32768,

	ActivationBytes: gibs(2.0),
	NonTorchBytes:   gibs(1.5),

	DefaultTP:                  2,
	DefaultMaxNumSeqs:          1024,
	DefaultMaxNumBatchedTokens: 8192,

	StepOverhead:          900 * time.Microsecond,
	PerSeqOverhead:        10 * time.Microsecond,
	TPLayerLatency:        8 * time.Microsecond,
	InterconnectBandwidth: 450e9,
	EPCommFactor:          1.3,

	StructuredStepOverhead: 600 * time.Microsecond,
	StructuredPerSeq:       40 * time.Microsecond,

	MeanOutputTokens: 256,
}

func init() { registerProfile(mixtralH100) }
