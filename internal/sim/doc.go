// Package sim is a vLLM-compatible server simulator: the stand-in target that
// the rest of llmgate drives when no GPU is at hand. It speaks vLLM's
// OpenAI-compatible HTTP API and /metrics, takes vLLM's command line, and runs
// a real-time continuous-batching engine whose step times come from a
// hardware/model profile. It imports nothing else from llmgate.
package sim
