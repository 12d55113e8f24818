package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"
)

// BenchmarkStreams measures what the simulator sustains on one core
// (GOMAXPROCS=1, the test clients sharing that core): 256 concurrent
// streams, each token its own SSE chunk. It reports streamed tokens per
// second as the clients counted them and how late engine steps ended
// against the model's deadlines (p50, p99, max), which must stay under 1 ms.
// benchStreams is the number of concurrent streams (a variable for experiments).
var benchStreams = 256

func BenchmarkStreams(b *testing.B) {
	for _, bc := range []struct {
		name     string
		slowdown string
	}{
		// The H100 profile with an fp8 KV cache: ~25k tokens/s modelled.
		{"h100-fp8", "1"},
		// Steps twice as fast: ~50k tokens/s asked of the simulator.
		{"h100-fp8-x2", "0.5"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			cfg := mustArgs(b, "--kv-cache-dtype", "fp8", "--max-num-seqs", "256", "--slowdown", bc.slowdown)
			cfg.recordTiming = true
			s, url := startSim(b, cfg)
			url += "/v1/completions"
			streams, outTokens := benchStreams, 512
			var tokens int
			var wall time.Duration
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				var wg sync.WaitGroup
				var mu sync.Mutex
				start := time.Now()
				for i := 0; i < streams; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						n, err := streamCount(url, completion(promptIDs(it*streams+i, 32), outTokens))
						if err != nil {
							b.Errorf("stream: %v", err)
							return
						}
						mu.Lock()
						tokens += n
						mu.Unlock()
					}()
				}
				wg.Wait()
				wall += time.Since(start)
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			s.Close()
			late := append([]time.Duration(nil), s.eng.timing.late...)
			sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
			q := func(p float64) float64 {
				if len(late) == 0 {
					return 0
				}
				return late[int(p*float64(len(late)-1))].Seconds() * 1000
			}
			within := 0
			for _, l := range late {
				if l <= time.Millisecond {
					within++
				}
			}
			b.ReportMetric(float64(tokens)/wall.Seconds(), "tokens/s")
			b.ReportMetric(float64(s.eng.timing.toks)/s.eng.timing.model.Seconds(), "model-tokens/s")
			b.ReportMetric(q(0.5), "step-late-p50-ms")
			b.ReportMetric(q(0.95), "step-late-p95-ms")
			b.ReportMetric(q(0.99), "step-late-p99-ms")
			b.ReportMetric(100*float64(within)/float64(max(len(late), 1)), "%steps-within-1ms")
			b.ReportMetric(s.eng.timing.max.Seconds()*1000, "step-late-max-ms")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(max(tokens, 1)), "allocs/token")
		})
	}
}

// streamCount is a lighter client for the benchmark: it counts chunks with
// choices and decodes only the final usage chunk, so that the clients sharing
// the one core cost little next to the server.
func streamCount(url string, body any) (int, error) {
	b, _ := json.Marshal(body)
	resp, err := testClient.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	chunks := 0
	var usage usageInfo
	for {
		line, err := rd.ReadSlice('\n')
		if err == io.EOF {
			return 0, fmt.Errorf("no [DONE]")
		}
		if err != nil {
			return 0, err
		}
		data, ok := bytes.CutPrefix(line, []byte("data: "))
		if !ok {
			continue
		}
		switch {
		case bytes.HasPrefix(data, []byte("[DONE]")):
			if usage.CompletionTokens == 0 {
				return 0, fmt.Errorf("no usage after %d chunks", chunks)
			}
			return usage.CompletionTokens, nil
		case bytes.Contains(data, []byte(`"choices":[]`)):
			var u struct{ Usage usageInfo }
			if err := json.Unmarshal(data, &u); err != nil {
				return 0, err
			}
			usage = u.Usage
		default:
			chunks++
		}
	}
}
