package results

import (
	"math"
	"slices"
	"testing"
)

func TestABBaselinePath(t *testing.T) {
	for in, want := range map[string]string{
		"results.json":          "results.baseline.json",
		"out/r.json":            "out/r.baseline.json",
		"noext":                 "noext.baseline",
		"dir.v2/results":        "dir.v2/results.baseline",
		"dir.v2/results.x.json": "dir.v2/results.x.baseline.json",
	} {
		if got := ABBaselinePath(in); got != want {
			t.Errorf("ABBaselinePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMergeBlocks checks a run's summary over its blocks against the
// summary of all their requests at once.
func TestMergeBlocks(t *testing.T) {
	a := []float64{10, 20, 30, 40}
	b := []float64{50, 60, 70, 80}
	blk := func(xs []float64, dur float64, failed int) Block {
		return Block{Summary: Summary{TTFT: ComputeStats(xs), ITL: ComputeStats(xs), DurationSeconds: dur, OutputTokens: 100,
			Requests: Requests{Completed: len(xs), Failed: failed}}, Samples: &Samples{TTFT: xs}}
	}
	s, smp := MergeBlocks([]Block{blk(a, 2, 0), blk(b, 3, 2)})
	all := ComputeStats(slices.Concat(a, b))
	if s.TTFT != all || len(smp.TTFT) != 8 {
		t.Errorf("TTFT %+v, want %+v", s.TTFT, all)
	}
	if s.Requests.Completed != 8 || s.Requests.Failed != 2 || math.Abs(s.ErrorRate-0.2) > 1e-12 {
		t.Errorf("requests %+v, error rate %v", s.Requests, s.ErrorRate)
	}
	if s.DurationSeconds != 5 || s.Throughput.OutputTokens != 40 || s.Throughput.Requests != 8.0/5 {
		t.Errorf("duration %v, throughput %+v: want rates over the 5 s measured", s.DurationSeconds, s.Throughput)
	}
	if s.ITL.N != 8 || s.ITL.Min != 10 || s.ITL.Max != 80 || s.ITL.Mean != 45 {
		t.Errorf("ITL %+v: want n 8, min 10, max 80, mean 45", s.ITL)
	}
}

func TestJoinRequestLogs(t *testing.T) {
	a := &RequestLog{StartUS: []int64{0, 5}, TTFTUS: []int64{1, 2}, E2ELUS: []int64{3, 4}, ITLMaxUS: []int64{1, 1},
		InputTokens: []int{7, 8}, OutputTokens: []int{9, 9}, Failures: []RequestFailure{{Index: 1, Kind: "http"}}}
	b := &RequestLog{StartUS: []int64{0}, TTFTUS: []int64{2}, E2ELUS: []int64{5}, ITLMaxUS: []int64{1},
		InputTokens: []int{6}, OutputTokens: []int{9}, Failures: []RequestFailure{{Index: 0, Kind: "timeout"}}, InvalidStructured: []int{0}}
	j := JoinRequestLogs([]*RequestLog{a, nil, b}, []int64{0, 50, 100})
	if j.Len() != 3 || !slices.Equal(j.StartUS, []int64{0, 5, 100}) || !slices.Equal(j.InputTokens, []int{7, 8, 6}) {
		t.Fatalf("joined %+v", j)
	}
	if len(j.Failures) != 2 || j.Failures[1].Index != 2 || !slices.Equal(j.InvalidStructured, []int{2}) {
		t.Errorf("indexes not shifted: failures %+v, invalid %v", j.Failures, j.InvalidStructured)
	}
	if j.Turn != nil || j.TraceRow != nil {
		t.Errorf("columns of zeros joined: turn %v trace_row %v", j.Turn, j.TraceRow)
	}
	b.TraceRow = []int{12}
	if j = JoinRequestLogs([]*RequestLog{a, b}, []int64{0, 100}); !slices.Equal(j.TraceRow, []int{0, 0, 12}) {
		t.Errorf("trace rows joined as %v, want [0 0 12]", j.TraceRow)
	}
	if JoinRequestLogs([]*RequestLog{nil}, []int64{0}) != nil {
		t.Error("no logs joined into a log")
	}
}

// TestMergeBlocksGoodputAtMostOne merges blocks whose every request was
// good: the pooled ratio is 1, though the sums' rounding made it
// 1.0000000000000002, which the file's own check refuses.
func TestMergeBlocksGoodputAtMostOne(t *testing.T) {
	blk := func(dur float64, n int) Block {
		return Block{Summary: Summary{DurationSeconds: dur, Requests: Requests{Completed: n},
			Goodput: Goodput{Requests: float64(n) / dur, Ratio: 1}}}
	}
	s, _ := MergeBlocks([]Block{blk(0.1, 1), blk(0.3, 11)})
	if s.Goodput.Ratio != 1 {
		t.Errorf("goodput ratio %v, want 1 (every request good)", s.Goodput.Ratio)
	}
	f := &File{Version: SchemaVersion, Runs: []Run{{Name: "chat", Scenario: "chat", Status: StatusOK, Summary: s}}}
	if err := f.Check(); err != nil {
		t.Errorf("the merged summary fails the file's check: %v", err)
	}
}

// TestMergePrefixCache pools the blocks' prefix-cache counts: queries and
// hits summed and the rate of the sums (not the highest block's rate); a
// block whose server counts none adds nothing, and with no block counting
// them the merged run has none.
func TestMergePrefixCache(t *testing.T) {
	counted := func(q, h float64) Block {
		return Block{Summary: Summary{Server: &ServerMetrics{PrefixCacheQueries: &q, PrefixCacheHits: &h, PrefixCacheHitRate: new(h / q)}}}
	}
	none := Block{Summary: Summary{Server: &ServerMetrics{KVCacheUsageMax: 0.5}}}
	s, _ := MergeBlocks([]Block{counted(1000, 100), none, counted(3000, 900)})
	m := s.Server
	if m.PrefixCacheQueries == nil || m.PrefixCacheHits == nil || m.PrefixCacheHitRate == nil {
		t.Fatalf("merged %+v: want the pooled counts", m)
	}
	if *m.PrefixCacheQueries != 4000 || *m.PrefixCacheHits != 1000 || *m.PrefixCacheHitRate != 0.25 {
		t.Errorf("merged queries %v, hits %v, rate %v; want 4000, 1000 and 0.25 (not the highest block's 0.3)", *m.PrefixCacheQueries, *m.PrefixCacheHits, *m.PrefixCacheHitRate)
	}
	s, _ = MergeBlocks([]Block{none, none})
	if m := s.Server; m == nil || m.PrefixCacheQueries != nil || m.PrefixCacheHits != nil || m.PrefixCacheHitRate != nil {
		t.Errorf("merged %+v: want server metrics without prefix-cache figures", m)
	}
	// blocks of files that stored a rate but not its terms: the highest
	old := Block{Summary: Summary{Server: &ServerMetrics{PrefixCacheHitRate: new(0.4)}}}
	s, _ = MergeBlocks([]Block{old, none, {Summary: Summary{Server: &ServerMetrics{PrefixCacheHitRate: new(0.1)}}}})
	if r := s.Server.PrefixCacheHitRate; r == nil || *r != 0.4 || s.Server.PrefixCacheQueries != nil {
		t.Errorf("merged old blocks: rate %v, queries %v; want 0.4 and none", r, s.Server.PrefixCacheQueries)
	}
}
