package load

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

// BenchmarkScale answers "how many streamed tokens per second can one core
// of load generator drive before its numbers go wrong?", the figure that
// sizes a runner for a cluster. Against benchserver_test.go's server (a
// child process, fixed TTFT and ITL, reporting what it actually did per
// request) it runs a closed loop at rising stream counts, so offered tokens/s
// = streams / ITL, and keeps the highest rate at which every accuracy target
// held:
//
//   - TTFT error the client adds (measured minus truth, per request, the
//     server's own lateness taken out): p50 ≤ 1 ms, p99 ≤ 5 ms;
//   - TPOT error the client adds: p99 ≤ 10% of the ITL;
//   - the load generator's own health checks pass, and every request ends ok.
//
// It stops at the first rate that misses a target. Run it alone, on a quiet
// machine:
//
//	go test ./internal/load -run '^$' -bench Scale -benchtime 1x
//
// LLMGATE_SCALE_PROCS sets the client's GOMAXPROCS (default 1: a per-core
// figure; the server child keeps every core). Reported, at the highest
// passing rate: tokens/s/core (the figure: the tokens/s the client consumed
// over its measured window, over GOMAXPROCS; below the offered rate by the
// TTFT gaps of a closed loop), offered_tokens/s/core, passing_streams and
// cpu_us/token. Each rate's figures and the load average are logged (-v).
func BenchmarkScale(b *testing.B) {
	procs := 1
	if v := os.Getenv("LLMGATE_SCALE_PROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("LLMGATE_SCALE_PROCS=%q: want a positive whole number", v)
		}
		procs = n
	}
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	const (
		ttft = 20 * time.Millisecond
		itl  = 5 * time.Millisecond
		out  = 64
	)
	srv := startBenchServer(b, ttft, itl)
	b.Logf("client GOMAXPROCS=%d of %d CPUs; load average before: %s", procs, runtime.NumCPU(), loadAverage())
	var best scaleStep
	for b.Loop() {
		best = scaleStep{}
		for _, streams := range []int{50, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200} {
			st := runScaleStep(b, srv, streams, ttft, itl, out)
			b.Logf("%s; load average %s", st, loadAverage())
			if st.miss != "" {
				break
			}
			best = st
		}
	}
	b.ReportMetric(best.achieved/float64(procs), "tokens/s/core")
	b.ReportMetric(best.offered/float64(procs), "offered_tokens/s/core")
	b.ReportMetric(float64(best.streams), "passing_streams")
	b.ReportMetric(best.cpuPerToken, "cpu_us/token")
}

// scaleStep is one rate of BenchmarkScale and how the client fared.
type scaleStep struct {
	streams                   int
	offered, achieved         float64 // tokens/s: streams/ITL, and what the client consumed
	ttftP50, ttftP99, tpotP99 float64 // client-added error, ms
	cpuPerToken               float64 // µs of client CPU per streamed token
	miss                      string  // the first target missed; "" when all held
}

func (s scaleStep) String() string {
	verdict := "ok"
	if s.miss != "" {
		verdict = "MISS: " + s.miss
	}
	return fmt.Sprintf("streams=%d offered=%.0f tok/s consumed=%.0f tok/s ttft_client p50=%.2f p99=%.2f ms tpot_client p99=%.3f ms cpu=%.1f µs/token: %s",
		s.streams, s.offered, s.achieved, s.ttftP50, s.ttftP99, s.tpotP99, s.cpuPerToken, verdict)
}

// runScaleStep runs streams users for four requests each after a warmup of
// one, and checks the accuracy targets against the server's truth.
func runScaleStep(b *testing.B, srv *benchTarget, streams int, ttft, itl time.Duration, out int) scaleStep {
	b.Helper()
	st := scaleStep{streams: streams, offered: float64(streams) / itl.Seconds()}
	srv.stats(b, true)
	cfg := Config{
		Load: runspec.Load{
			Concurrency: streams,
			Requests:    4 * streams,
			Warmup:      streams,
			Workload:    runspec.Workload{Kind: runspec.WorkloadRandom, InputTokens: 16, OutputTokens: out, RangeRatio: 0.25},
		},
		BaseURL: srv.url,
		Model:   "bench",
	}
	c0 := cpuTime()
	res, err := Run(context.Background(), cfg, nil)
	cpu := cpuTime() - c0
	if err != nil {
		b.Fatal(err)
	}
	truth := srv.stats(b, false).Truth
	wl, err := newWorkload(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var ttftClient, tpotClient []float64
	var tokens, measuredTokens int64
	var failed []string
	for _, r := range res.Records {
		tokens += int64(r.OutputTokens)
		if r.Warmup {
			continue
		}
		if !r.OK() {
			failed = append(failed, r.Error)
			continue
		}
		measuredTokens += int64(r.OutputTokens)
		h := fnv.New64a()
		h.Write(wl.next(slot{seq: r.Seq, index: r.Index}).body)
		tr, ok := truth[strconv.FormatUint(h.Sum64(), 10)]
		if !ok {
			b.Fatalf("server has no truth for request %d", r.Seq)
		}
		ttftClient = append(ttftClient, float64(r.TTFT-ttft-time.Duration(tr.LateNS))/1e6)
		if r.OutputTokens > 1 {
			tpot := float64(r.E2EL-r.TTFT) / 1e6 / float64(r.OutputTokens-1)
			tpotClient = append(tpotClient, tpot-float64(tr.TPOTNS)/1e6)
		}
	}
	if !res.End.IsZero() && res.End.After(res.Start) {
		st.achieved = float64(measuredTokens) / res.End.Sub(res.Start).Seconds()
	}
	st.cpuPerToken = float64(cpu) / 1e3 / float64(max(tokens, 1))
	st.ttftP50, st.ttftP99, st.tpotP99 = pct(ttftClient, 50), pct(ttftClient, 99), pct(tpotClient, 99)
	limitTPOT := 0.1 * float64(itl) / 1e6
	switch {
	case len(failed) > 0:
		st.miss = fmt.Sprintf("%d requests failed, first: %s", len(failed), failed[0])
	case len(res.health(cfg).Problems) > 0:
		st.miss = "health: " + strings.Join(res.health(cfg).Problems, "; ")
	case st.ttftP50 > 1:
		st.miss = fmt.Sprintf("TTFT p50 client error %.2f ms > 1 ms", st.ttftP50)
	case st.ttftP99 > 5:
		st.miss = fmt.Sprintf("TTFT p99 client error %.2f ms > 5 ms", st.ttftP99)
	case st.tpotP99 > limitTPOT:
		st.miss = fmt.Sprintf("TPOT p99 client error %.3f ms > %.2f ms", st.tpotP99, limitTPOT)
	}
	return st
}

// loadAverage is /proc/loadavg's first three fields, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
