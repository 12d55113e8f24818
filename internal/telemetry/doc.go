// Package telemetry reads what a server and its GPUs report while a run is
// measured, and reduces it to the figures a results file stores: a
// server's Prometheus /metrics page (vLLM's, SGLang's and llama.cpp's
// names: gauges, counters, the latency histograms and the
// speculative-decoding counters) into snapshots, a run's snapshots into
// results.ServerMetrics, and the GPUs' readings from nvidia-smi or a DCGM
// exporter into results.GPUReading.
//
// Every page and answer it reads is untrusted: values outside the limits
// of results (results/limits.go) are refused, so that what it hands on is
// what results.Check accepts. Package results keeps only the stored types
// and links no Prometheus library; the parsing lives here.
package telemetry
