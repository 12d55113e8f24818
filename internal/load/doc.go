// Package load drives one run against an OpenAI-compatible endpoint: an
// arrival process paces sends, a workload makes the prompts, a streaming
// client times every chunk, and per-request results.Records come out. It knows
// nothing of HCL or baselines.
package load
