package load

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// Accuracy and cost of the client, against benchserver_test.go's server
// with a known TTFT and ITL. Run with:
//
//	go test ./internal/load -run '^$' -bench . -benchtime 1x
//
// Reported figures (b.ReportMetric):
//   - ttft_p50_err_ms, ttft_p99_err_ms: measured TTFT minus the server's
//     fixed TTFT: everything the client and the loopback add;
//   - tpot_p50_err_ms, tpot_p99_err_ms: measured TPOT minus the fixed ITL;
//   - ttft_p50_client_ms, ttft_p99_client_ms, tpot_p99_client_ms: the same
//     errors less what the server itself did late (its timer wake-ups on a
//     busy box), matched per request: what the client and loopback add;
//   - server_late_p99_ms: how late the server itself wrote first chunks;
//   - mean_in_flight: the run's own Little's-law check (should be near the
//     stream count);
//   - cpu_us/token: client CPU (user+sys, getrusage) per streamed token;
//   - tokens/s: streamed tokens the client consumed per second;
//   - KiB/stream: client memory (heap in use + stacks) per in-flight stream.

const (
	benchTTFT = 50 * time.Millisecond
	benchITL  = 10 * time.Millisecond
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func pct(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return results.Percentile(s, p)
}

// BenchmarkAccuracy measures TTFT and TPOT against the truth at 1, 256 and
// 512 concurrent streams: a closed loop whose answers are 16 to 48 tokens
// long (range_ratio 0.5), so that users drift apart after the first wave as
// they do against a real server, instead of all finishing and resending in
// the same millisecond forever.
func BenchmarkAccuracy(b *testing.B) {
	for _, streams := range []int{1, 256, 512} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			srv := startBenchServer(b, benchTTFT, benchITL)
			requests := max(4*streams, 20)
			const out = 32
			var ttftErr, tpotErr, ttftClient, tpotClient []float64
			var tokens int64
			var cpu, wall time.Duration
			var late float64
			var inFlight []float64
			for b.Loop() {
				srv.stats(b, true)
				cfg := Config{
					Load: runspec.Load{
						Concurrency: streams,
						Requests:    requests,
						Warmup:      streams,
						Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: out, RangeRatio: 0.5},
					},
					BaseURL: srv.url,
					Model:   "bench",
				}
				c0, t0 := cpuTime(), time.Now()
				res, err := Run(context.Background(), cfg, nil)
				cpu += cpuTime() - c0
				wall += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				_, health := res.Analyze(cfg, results.SummarizeOptions{})
				inFlight = append(inFlight, health.MeanInFlight)
				if len(health.Problems) > 0 {
					b.Logf("load generator health: %v", health.Problems)
				}
				st := srv.stats(b, false)
				wl, _ := newWorkload(cfg)
				for _, r := range res.Records {
					tokens += int64(r.OutputTokens)
					if r.Warmup {
						continue
					}
					h := fnv.New64a()
					h.Write(wl.next(slot{seq: r.Seq, index: r.Index}).body)
					truth, ok := st.Truth[strconv.FormatUint(h.Sum64(), 10)]
					if !ok {
						b.Fatalf("server has no truth for request %d", r.Seq)
					}
					if !r.OK() {
						b.Fatalf("request %d failed: %s", r.Seq, r.Error)
					}
					ttftErr = append(ttftErr, float64(r.TTFT-benchTTFT)/1e6)
					tpot := float64(r.E2EL-r.TTFT) / 1e6 / float64(r.OutputTokens-1)
					tpotErr = append(tpotErr, tpot-float64(benchITL)/1e6)
					ttftClient = append(ttftClient, float64(r.TTFT-benchTTFT-time.Duration(truth.LateNS))/1e6)
					tpotClient = append(tpotClient, tpot-float64(truth.TPOTNS)/1e6)
				}
				late = max(late, st.LateP99MS)
			}
			b.ReportMetric(pct(ttftErr, 50), "ttft_p50_err_ms")
			b.ReportMetric(pct(ttftErr, 99), "ttft_p99_err_ms")
			b.ReportMetric(pct(tpotErr, 50), "tpot_p50_err_ms")
			b.ReportMetric(pct(tpotErr, 99), "tpot_p99_err_ms")
			b.ReportMetric(pct(ttftClient, 50), "ttft_p50_client_ms")
			b.ReportMetric(pct(ttftClient, 99), "ttft_p99_client_ms")
			b.ReportMetric(pct(tpotClient, 99), "tpot_p99_client_ms")
			b.ReportMetric(late, "server_late_p99_ms")
			b.ReportMetric(pct(inFlight, 50), "mean_in_flight")
			b.ReportMetric(float64(cpu)/1e3/float64(tokens), "cpu_us/token")
		})
	}
}

// BenchmarkStreamThroughput measures the client's CPU per streamed token
// and the tokens/s it consumes on one core (GOMAXPROCS=1), one token per
// chunk and 512-token answers:
//   - saturated: 256 streams each sent a token every millisecond (256k
//     tokens/s offered, more than one core of client takes on a 2-core box,
//     so reads find several chunks waiting: the capacity figure);
//   - paced: 128 streams every 5 ms (25.6k tokens/s offered): the client
//     keeps up, so every chunk costs its own wake-up and read: the figure for
//     a client that is not the bottleneck.
func BenchmarkStreamThroughput(b *testing.B) {
	for _, bc := range []struct {
		name    string
		streams int
		itl     time.Duration
	}{
		{name: "saturated", streams: 256, itl: time.Millisecond},
		{name: "paced", streams: 128, itl: 5 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			srv := startBenchServer(b, time.Millisecond, bc.itl)
			const out = 512
			var tokens int64
			var cpu, wall time.Duration
			for b.Loop() {
				cfg := Config{
					Load: runspec.Load{
						Concurrency: bc.streams,
						Requests:    bc.streams,
						Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: out},
					},
					BaseURL: srv.url,
					Model:   "bench",
				}
				c0, t0 := cpuTime(), time.Now()
				res, err := Run(context.Background(), cfg, nil)
				cpu += cpuTime() - c0
				wall += time.Since(t0)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range res.Records {
					if !r.OK() {
						b.Fatalf("request %d failed: %s", r.Seq, r.Error)
					}
					tokens += int64(r.OutputTokens)
				}
			}
			b.ReportMetric(float64(tokens)/wall.Seconds(), "tokens/s")
			b.ReportMetric(float64(cpu)/1e3/float64(tokens), "cpu_us/token")
		})
	}
}

// BenchmarkMemoryPerStream holds 512 streams in flight (a long TTFT) and
// measures the client's heap and stack growth per stream after a GC.
func BenchmarkMemoryPerStream(b *testing.B) {
	const streams = 512
	srv := startBenchServer(b, 2*time.Second, benchITL)
	var perStream float64
	for b.Loop() {
		runtime.GC()
		var before, during runtime.MemStats
		runtime.ReadMemStats(&before)
		done := make(chan error)
		cfg := Config{
			Load: runspec.Load{
				Concurrency: streams,
				Requests:    streams,
				Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: 4},
			},
			BaseURL: srv.url,
			Model:   "bench",
		}
		go func() { _, err := Run(context.Background(), cfg, nil); done <- err }()
		for srv.stats(b, false).InFlight < streams {
			time.Sleep(5 * time.Millisecond) // polling the server's count
		}
		runtime.GC()
		runtime.ReadMemStats(&during)
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		used := float64(during.HeapInuse+during.StackInuse) - float64(before.HeapInuse+before.StackInuse)
		perStream = max(perStream, used/streams)
	}
	b.ReportMetric(perStream/1024, "KiB/stream")
}

// BenchmarkSSEChunk measures the reader and scanner alone on one vLLM
// completions chunk with continuous usage: the client's own CPU per token
// once the bytes are in memory.
func BenchmarkSSEChunk(b *testing.B) {
	ev := []byte(`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":16,"total_tokens":18,"completion_tokens":2}}` + "\n\n")
	stream := bytes.Repeat(ev, 1000)
	rd := bytes.NewReader(stream)
	s := newSSEReader(rd, 4096)
	var c chunk
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		data, _, err := s.next()
		if err == io.EOF {
			rd.Reset(stream)
			s.reset(rd)
			continue
		}
		if err := parseChunk(data, &c); err != nil || !c.choices {
			b.Fatal(err)
		}
	}
}
