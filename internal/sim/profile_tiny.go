package sim

import "time"

// A small, fast, made-up deployment for tests: steps of about 1.5-3 ms and a
// KV cache of 4,096 tokens at --gpu-memory-utilization 0.9 (1,638 at 0.75), so
// queueing and preemption show up with a handful of requests. Its figures are
// invented, not measured; only their proportions mimic a real GPU (decode is
// bandwidth-bound, prefill compute-bound).
var tinyProfile = &Profile{
	Name:        "tiny",
	Description: "made-up small model for tests: ~2 ms steps, 4k-token KV cache",
	ModelName:   "llmgate/tiny-sim",
	GPUName:     "llmgate tiny test GPU (simulated)",

	GPUMemoryBytes:      gibs(1),
	MemBandwidth:        0.5e12,
	PeakFLOPS:           50e12,
	BandwidthEfficiency: 1.0,
	ComputeEfficiency:   0.5,

	Params:              322_122_547, // 0.6 GiB of BF16 weights
	ActiveParams:        322_122_547,
	WeightBytesPerParam: 2,
	Layers:              16,
	KVHeads:             8,
	HeadDim:             128,
	Hidden:              1024,
	Vocab:               32000,
	MaxModelLen:         1024,

	ActivationBytes: gibs(0.025),
	NonTorchBytes:   gibs(0.025),

	DefaultTP:                  1,
	DefaultMaxNumSeqs:          64,
	DefaultMaxNumBatchedTokens: 512,

	StepOverhead:          300 * time.Microsecond,
	PerSeqOverhead:        10 * time.Microsecond,
	TPLayerLatency:        5 * time.Microsecond,
	InterconnectBandwidth: 100e9,
	EPCommFactor:          1.0,

	StructuredStepOverhead: 800 * time.Microsecond,
	StructuredPerSeq:       30 * time.Microsecond,

	MeanOutputTokens: 48,
}

func init() { registerProfile(tinyProfile) }
