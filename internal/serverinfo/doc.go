// Package serverinfo finds out what an OpenAI-compatible server supports
// of what llmgate uses: its models and their context, token-id prompts,
// when a chat stream's role chunk arrives, what its streams report in
// usage, whether ignore_eos and min_tokens are honoured, /tokenize and the
// chat template's shared prefix, the /metrics family, the prefix-cache
// reset and how long it keeps an idle connection open. Discover returns all
// of it as Features, once per server: `llmgate probe` prints it, and the
// runner asks it of each server it starts or is pointed at, then runs every
// run on that server with what was found (no /metrics scraped from a
// server that has none, no /tokenize asked of one without it, text prompts
// to one that refuses token ids) and records what was missing and what
// that cost.
//
// It also owns the other requests llmgate makes of a server outside a
// run's load: the bounded reads of /v1/models and /version, and the
// prefix-cache reset before each run with its check (ResetPrefixCache).
//
// Not to be confused with package capacity's probes, which are measured
// runs at one load level of a capacity search: Discover asks a
// server what it can do and measures nothing of its performance.
//
// It imports results (the metric parser, the records of a reset and of
// missing features) and untrusted; nothing of the load engine, the runner
// or the targets.
package serverinfo
