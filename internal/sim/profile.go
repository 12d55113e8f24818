package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

const gib = 1 << 30

// gibs converts GiB to bytes.
func gibs(f float64) int64 { return int64(f * gib) }

// Profile describes one simulated deployment: a model on a GPU. Its constants
// decide the KV-cache budget and the time of every engine step. Each profile
// lives in its own file (profile_*.go) with a comment citing where its
// figures come from.
type Profile struct {
	// Name is what --profile selects, e.g. "llama-3.1-8b-h100".
	Name string
	// Description is one line for --help.
	Description string
	// ModelName is the model served when no model is given.
	ModelName string
	// GPUName is reported in logs, e.g. "NVIDIA H100 80GB HBM3 (simulated)".
	GPUName string

	// GPUMemoryBytes is the memory of one GPU as the driver reports it.
	GPUMemoryBytes int64
	// MemBandwidth is one GPU's peak HBM bandwidth in bytes per second.
	MemBandwidth float64
	// PeakFLOPS is one GPU's dense BF16 tensor throughput in FLOP/s.
	PeakFLOPS float64
	// BandwidthEfficiency and ComputeEfficiency are the fractions of the peaks
	// that the serving kernels achieve (estimates, see each profile).
	BandwidthEfficiency, ComputeEfficiency float64

	// Params is the total parameter count; ActiveParams the parameters used
	// per token (equal to Params for a dense model).
	Params, ActiveParams int64
	// ExpertParams is the part of Params held in MoE experts (0 when dense).
	ExpertParams int64
	// Experts and ExpertsPerToken describe the MoE routing (0 when dense).
	Experts, ExpertsPerToken int
	// WeightBytesPerParam is 2 for BF16 weights.
	WeightBytesPerParam float64
	// Layers, KVHeads, HeadDim and Hidden are the transformer's shape.
	Layers, KVHeads, HeadDim, Hidden int
	// Vocab is the tokenizer's vocabulary size.
	Vocab int
	// MaxModelLen is the model's context length (the --max-model-len default).
	MaxModelLen int

	// ActivationBytes is the peak activation memory vLLM's profiling run
	// finds; NonTorchBytes covers the CUDA context, NCCL and CUDA graphs.
	ActivationBytes, NonTorchBytes int64

	// DefaultTP is the tensor-parallel size used when none is given.
	DefaultTP int
	// DefaultMaxNumSeqs and DefaultMaxNumBatchedTokens are vLLM's defaults
	// for this GPU class.
	DefaultMaxNumSeqs, DefaultMaxNumBatchedTokens int

	// StepOverhead is the fixed cost of a step: scheduling, kernel launches
	// (CUDA graphs), sampling. PerSeqOverhead is added per running sequence.
	StepOverhead, PerSeqOverhead time.Duration
	// TPLayerLatency is the latency of one all-reduce; two happen per layer
	// when the tensor-parallel size is above 1. InterconnectBandwidth is the
	// all-reduce bus bandwidth (NVLink) in bytes per second.
	TPLayerLatency        time.Duration
	InterconnectBandwidth float64
	// EPCommFactor scales the communication cost when expert parallelism
	// replaces tensor parallelism for the experts (all-to-all vs all-reduce).
	EPCommFactor float64

	// StructuredStepOverhead is added to a step with any structured-output
	// request (grammar bitmask fill); StructuredPerSeq per such request.
	StructuredStepOverhead, StructuredPerSeq time.Duration

	// MeanOutputTokens is the mean length of an answer that stops on its own
	// (no ignore_eos): lengths are drawn uniformly from [1, 2*mean].
	MeanOutputTokens int
}

var profiles = map[string]*Profile{}

func registerProfile(p *Profile) { profiles[p.Name] = p }

// DefaultProfile is the profile used when --profile is not given.
const DefaultProfile = "llama-3.1-8b-h100"

// LookupProfile returns the named profile, or an error listing the known ones.
func LookupProfile(name string) (*Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	p, ok := profiles[name]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return p, nil
}

// ProfileNames lists the known profiles, sorted.
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// kvBytesPerToken is the KV-cache size of one token across all GPUs:
// K and V, per layer, per KV head, per head dimension.
func (p *Profile) kvBytesPerToken(dtypeBytes float64) float64 {
	return 2 * float64(p.Layers) * float64(p.KVHeads) * float64(p.HeadDim) * dtypeBytes
}

// weightBytes is the size of all weights across all GPUs.
func (p *Profile) weightBytes() float64 {
	return float64(p.Params) * p.WeightBytesPerParam
}

// kvDtypeBytes maps --kv-cache-dtype to bytes per element.
func kvDtypeBytes(dtype string) (float64, error) {
	switch dtype {
	case "", "auto", "bfloat16", "float16", "half":
		return 2, nil
	case "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla":
		return 1, nil
	case "float32":
		return 4, nil
	}
	return 0, fmt.Errorf("unknown --kv-cache-dtype %q (use auto, fp8, fp8_e4m3 or fp8_e5m2)", dtype)
}
