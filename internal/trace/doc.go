// Package trace reads request traces (when each request arrived, how long
// its prompt and answer were, and which blocks of its prompt it shared with
// others) in the formats production traces are published in: Mooncake's
// JSONL, Azure's CSV, and llmgate's own JSONL. It picks the rows a run
// replays (Window) and describes them (Summarize). It knows nothing of HCL
// or HTTP and imports the standard library only (and internal/linefile,
// which does too), so that both the suite (to
// check and describe a trace at validate) and the load engine (to replay
// it) use the same reading.
package trace
