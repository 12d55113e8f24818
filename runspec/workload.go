package runspec

import "time"

// WorkloadKind is what a workload's prompts are made of.
type WorkloadKind string

// Workload kinds.
const (
	WorkloadRandom       WorkloadKind = "random"
	WorkloadPrefix       WorkloadKind = "prefix"
	WorkloadStructured   WorkloadKind = "structured"
	WorkloadConversation WorkloadKind = "conversation"
	WorkloadDataset      WorkloadKind = "dataset"
	WorkloadTrace        WorkloadKind = "trace"
)

// Valid reports whether k is one of the WorkloadKinds.
func (k WorkloadKind) Valid() bool {
	for _, w := range WorkloadKinds {
		if k == w {
			return true
		}
	}
	return false
}

// Dataset filters (Workload.DatasetFilter).
const (
	DatasetFilterContext   = "context"
	DatasetFilterVLLMBench = "vllm_bench"
)

// DatasetFilters are the values dataset_filter takes, "none" for "".
var DatasetFilters = []string{"none", DatasetFilterContext, DatasetFilterVLLMBench}

// WorkloadKinds are the Workload constants, in the order suites list them.
var WorkloadKinds = []WorkloadKind{WorkloadRandom, WorkloadPrefix, WorkloadStructured, WorkloadConversation, WorkloadDataset, WorkloadTrace}

// Workload describes the prompts of a run.
type Workload struct {
	// Kind is one of the WorkloadKinds.
	Kind WorkloadKind
	// InputTokens and OutputTokens are the mean lengths in tokens.
	InputTokens  int
	OutputTokens int
	// RangeRatio spreads lengths uniformly over [n*(1-r), n*(1+r)].
	RangeRatio float64
	// PrefixTokens is the shared prefix length for the prefix workload.
	PrefixTokens int
	// PrefixGroups is how many distinct prefixes the prefix workload rotates through.
	PrefixGroups int
	// Schema is a JSON schema (as JSON text) for the structured workload.
	Schema string
	// Tools, when set, is a JSON array of OpenAI function tools that every
	// chat request offers, and ToolChoice its tool_choice as JSON ("" for
	// none sent).
	Tools, ToolChoice string
	// Turns is the number of turns per conversation.
	Turns int
	// ThinkTime is the least time between the end of a conversation's turn
	// and the send of its next turn.
	ThinkTime time.Duration
	// LengthBuckets are the input lengths, in tokens and increasing, that
	// split the run's results into buckets by input length; nil for none.
	LengthBuckets []int
	// LengthQuantiles asks for that many buckets of about equal counts,
	// their edges drawn from the run's requested input lengths
	// (load.ResolveLengthBuckets); 0 when LengthBuckets are declared.
	LengthQuantiles int
	// LengthBucketNames name the buckets in metric names, one a bucket:
	// length_bucket.<name>.ttft.p95.
	LengthBucketNames []string
	// DatasetPath is the dataset workload's file, absolute.
	DatasetPath string
	// DatasetFormat is its format: "" for ShareGPT JSON, "jsonl" (one
	// object a line: prompt or messages, optional output_tokens) or "csv"
	// (a prompt column, optional output_tokens).
	DatasetFormat string
	// MaxPromptTokens and MaxTotalTokens, when set, leave out the
	// dataset's entries whose prompt, or prompt and answer, are longer.
	MaxPromptTokens, MaxTotalTokens int
	// DatasetFilter is which of a dataset's entries the run leaves out:
	// "" none (those that cannot fit the model's context are counted and
	// reported, and fail), DatasetFilterContext those that cannot fit,
	// DatasetFilterVLLMBench those `vllm bench serve` leaves out of a
	// ShareGPT file (and those that cannot fit).
	DatasetFilter string
	// TracePath is the trace file the trace workload replays, absolute.
	TracePath string
	// TraceFormat is its format: "mooncake", "azure" or "jsonl" (package
	// trace's Formats).
	TraceFormat string
	// TimeScale divides the trace's gaps between arrivals (2 replays twice
	// as fast); 0 means 1.
	TimeScale float64
	// TraceStart is where in the trace the replay begins, after its
	// earliest row: rows before it are left out.
	TraceStart time.Duration
	// BlockSize is the tokens each of a trace's hash ids stands for; 0
	// means Mooncake's 512.
	BlockSize int
	// TraceSkip leaves out that many of the trace's rows from TraceStart
	// on, before the warmup: a block of an A/B run replays the rows after
	// those of the blocks before it.
	TraceSkip int
	// Chat sends text prompts over /v1/chat/completions instead of token ids
	// over /v1/completions.
	Chat bool
	// TextPrompts sends text instead of token ids to /v1/completions, for
	// servers that refuse token-id prompts (the load engine also switches to
	// text by itself when the server answers a token-id prompt with 400).
	TextPrompts bool
	// IgnoreEOS asks the server to generate exactly max_tokens tokens; default true.
	IgnoreEOS *bool
}
