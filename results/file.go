package results

import (
	"strings"
	"time"

	"github.com/llmgate/llmgate/untrusted"
)

// SchemaVersion is the version of the results file this build writes. Files
// with another major version are refused on read. 1.1 added, per run, the
// load configuration (Load), the per-request log (Requests) and the
// prefix-cache reset (PrefixCache); 1.0 files read with those nil.
const SchemaVersion = "1.1"

// File is one results file: everything a run of a suite produced, or a
// baseline promoted from one.
type File struct {
	// Version is the schema version, "major.minor".
	Version string `json:"version" text:"line"`
	// Suite identifies the suite that produced the file.
	Suite SuiteInfo `json:"suite"`
	// Environment records where the numbers were measured.
	Environment Environment `json:"environment"`
	// Created is when the file was first written.
	Created time.Time `json:"created"`
	// Partial is true while a run is still in progress or when it was cut short.
	Partial bool `json:"partial,omitempty"`
	// Provenance says where a promoted baseline came from; nil for plain results.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Plan says which plan the runs are of and, for a shard or a merge of
	// shards, which shards; nil in files that predate it.
	Plan *PlanInfo `json:"plan,omitempty"`
	// AB marks one side of an A/B gate measured in one job; nil otherwise.
	AB *AB `json:"ab,omitempty"`
	// Gate is the verdict llmgate gate gave on this file; nil when no
	// gate judged it.
	Gate *GateVerdict `json:"gate,omitempty"`
	// Runs holds one entry per expanded run of the suite, in plan order.
	Runs []Run `json:"runs"`
}

// SuiteInfo identifies a suite.
type SuiteInfo struct {
	// Name is the suite block's label.
	Name string `json:"name" text:"name"`
	// File is the suite's path as given on the command line.
	File string `json:"file,omitempty" text:"line"`
	// Description is the suite's description attribute.
	Description untrusted.String `json:"description,omitempty"`
}

// Environment is the metadata that decides whether two files are comparable.
type Environment struct {
	GitSHA         untrusted.String `json:"git_sha,omitempty" text:"line"`
	GitRef         untrusted.String `json:"git_ref,omitempty" text:"line"`
	Image          untrusted.String `json:"image,omitempty" text:"line"`
	ImageDigest    untrusted.String `json:"image_digest,omitempty" text:"line"`
	VLLMVersion    untrusted.String `json:"vllm_version,omitempty" text:"line"`
	Model          untrusted.String `json:"model,omitempty" text:"line"`
	GPU            untrusted.String `json:"gpu,omitempty" text:"line"`
	TargetKind     untrusted.String `json:"target_kind,omitempty" text:"line"`
	Host           untrusted.String `json:"host,omitempty" text:"line"`
	LLMGateVersion untrusted.String `json:"llmgate_version,omitempty" text:"line"`
}

// Provenance records where a baseline was promoted from.
type Provenance struct {
	Source   string           `json:"source" text:"line"`
	Commit   string           `json:"commit,omitempty" text:"line"`
	Image    untrusted.String `json:"image,omitempty" text:"line"`
	Promoted time.Time        `json:"promoted"`
}

// Status is how a run (or a capacity probe, or an A/B block) ended. It is
// written to the results file as its string.
type Status string

// Status values for a Run.
const (
	StatusOK      Status = "ok"      // the run completed and its load generator was healthy
	StatusInvalid Status = "invalid" // the load generator failed its self-checks; do not judge the server
	StatusPartial Status = "partial" // the run was cut short (server died, interrupted, timed out)
	StatusFailed  Status = "failed"  // the run could not be carried out at all
)

// Valid reports whether s is one of the Status constants.
func (s Status) Valid() bool {
	switch s {
	case StatusOK, StatusInvalid, StatusPartial, StatusFailed:
		return true
	}
	return false
}

// Run is one expanded run of a scenario: its parameters and what was measured.
type Run struct {
	// Name is "scenario" or "scenario[key=value,...]" for sweep points.
	Name string `json:"name" text:"name"`
	// Scenario is the scenario block's label.
	Scenario string `json:"scenario" text:"name"`
	// Params holds the sweep values of this run, by key, formatted as in Name.
	Params map[string]string `json:"params,omitempty" text:"name"`
	// Target names the target block ("server.vllm", "simulator.sim", ...).
	Target string `json:"target,omitempty" text:"name"`
	// Status is one of the Status constants.
	Status Status `json:"status" text:"name"`
	// InvalidReasons explains StatusInvalid: which self-check failed and by how much.
	InvalidReasons []string `json:"invalid_reasons,omitempty"`
	// Error is the reason for StatusFailed or StatusPartial.
	Error untrusted.String `json:"error,omitempty"`
	// Started and Finished bound the measured window in wall-clock time.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Summary holds the run's metrics.
	Summary Summary `json:"summary"`
	// Asserts holds the outcome of each assert block, in file order.
	Asserts []AssertResult `json:"asserts,omitempty"`
	// Samples holds per-request samples for significance tests.
	Samples *Samples `json:"samples,omitempty"`
	// Load is the load the run was driven with; nil in files written before
	// it was recorded.
	Load *LoadConfig `json:"load,omitempty"`
	// Requests is the per-request log of the measured requests (columnar,
	// see RequestLog); nil in files written before it existed.
	Requests *RequestLog `json:"requests,omitempty"`
	// ServerSeries is the server's /metrics over the measured phase; nil when
	// the server was not scraped.
	ServerSeries *ServerSeries `json:"server_series,omitempty"`
	// GPUSeries is the server's GPU samples over the measured phase; nil
	// when the GPUs were not sampled.
	GPUSeries *GPUSeries `json:"gpu_series,omitempty"`
	// Unchecked lists the load generator's self-checks that the run was
	// too short (or of the wrong kind) to apply, each with why.
	Unchecked []string `json:"unchecked,omitempty"`
	// Calibration says how prompt lengths were matched to the workload, and
	// Lengths compares requested and actual lengths; nil in older files.
	Calibration *Calibration `json:"calibration,omitempty"`
	Lengths     *Lengths     `json:"lengths,omitempty"`
	// PrefixCache says whether the server's prefix cache was reset before
	// the run; nil in files written before llmgate reset it.
	PrefixCache *CacheReset `json:"prefix_cache,omitempty"`
	// Imported says where a run not measured by llmgate came from (llmgate
	// import vllm-bench); nil for llmgate's own runs.
	Imported *Imported `json:"imported,omitempty"`
	// Dataset is what a dataset run found of its entries' fit; nil for
	// other workloads.
	Dataset *DatasetFit `json:"dataset,omitempty"`
	// MissingFeatures are the features llmgate uses that the run's server
	// lacked, each with its cost; nil when it had them all (or the file
	// predates the probe).
	MissingFeatures []MissingFeature `json:"missing_features,omitempty"`
	// Blocks are the run's blocks when it is one side of an A/B run, in
	// schedule order; Summary and Samples then merge them (MergeBlocks).
	Blocks []Block `json:"blocks,omitempty"`
	// Capacity is set on a capacity search's run: its probes and answer.
	Capacity *Capacity `json:"capacity,omitempty"`
}

// Valid reports whether the run's numbers may be judged.
func (r *Run) Valid() bool { return r.Status == StatusOK }

// AssertResult is the outcome of one assert block against one run.
type AssertResult struct {
	// Name is the assert block's label.
	Name string `json:"name" text:"name"`
	// Passed is true when the condition held.
	Passed bool `json:"passed"`
	// Condition is the source text of the expression.
	Condition untrusted.String `json:"condition"`
	// Message is the error_message on failure, or the evaluation error.
	Message untrusted.String `json:"message,omitempty"`
	// Values lists what the expression saw, e.g. {"ttft.p95": 612.4}.
	Values map[string]float64 `json:"values,omitempty" text:"name"`
	// Units gives each value of Values that is not a metric's (var.ttft_ms)
	// the unit of the metric it is compared with (ttft.p95 < var.ttft_ms);
	// a metric's value is in the metric's unit. nil in older files.
	Units map[string]Unit `json:"units,omitempty" text:"name"`
	// File, Line and Column locate the condition in the suite.
	File   string `json:"file,omitempty" text:"line"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Samples holds per-request values in milliseconds, measured requests only.
type Samples struct {
	TTFT []float64 `json:"ttft"`
	// TTFO is empty in files from before it was measured.
	TTFO []float64 `json:"ttfo,omitempty"`
	// ToolCall is the time to the complete tool calls (ms) of the
	// requests that made one; empty for a workload without tools.
	ToolCall []float64 `json:"tool_call,omitempty"`
	TPOT     []float64 `json:"tpot"`
	E2EL     []float64 `json:"e2el"`
	// ITL is a compact histogram of all inter-token latencies.
	ITL *Histogram `json:"itl,omitempty"`
}

// Histogram is a log-bucketed histogram of millisecond values: bucket i holds
// values in [Base*Growth^i, Base*Growth^(i+1)); values below Base go in Under.
type Histogram struct {
	Base   float64 `json:"base"`
	Growth float64 `json:"growth"`
	Under  int64   `json:"under,omitempty"`
	Counts []int64 `json:"counts"`
}

// Imported says where an imported run was measured and how: what a reader
// of a comparison against it must know, since another tool's figures are
// not computed quite as llmgate's (see docs/running.md).
type Imported struct {
	// From is the tool, ImportedVLLMBench.
	From string `json:"from"`
	// Backend is the tool's backend ("vllm", "openai-chat", ...); chat
	// backends measure ITL and E2EL differently.
	Backend string `json:"backend,omitempty"`
	// Date is when the tool says it ran, as it wrote it; DateZone says in
	// which zone ("unknown": vllm bench writes the local time of the
	// machine it ran on, without saying which).
	Date     string `json:"date,omitempty"`
	DateZone string `json:"date_zone,omitempty"`
}

// ImportedVLLMBench is Imported.From for `vllm bench serve` results.
const ImportedVLLMBench = "vllm bench serve"

// Chat reports whether the tool drove a chat endpoint.
func (i *Imported) Chat() bool { return i != nil && strings.Contains(i.Backend, "chat") }
