package results

import (
	"strings"
	"testing"
	"time"
)

// partRecords are 8 measured requests: members chat (TTFT 10..13 ms) and
// rag (TTFT 100..103 ms), the first four in stage 1 and the rest in stage
// 2, after one warmup request of neither stage.
func partRecords() []Record {
	recs := []Record{{Seq: 0, Warmup: true, Member: "chat", TTFT: time.Millisecond, E2EL: 2 * time.Millisecond, OutputTokens: 2}}
	for i := range 8 {
		member, base := "chat", 10
		if i%2 == 1 {
			member, base = "rag", 100
		}
		ttft := time.Duration(base+i/2) * time.Millisecond
		recs = append(recs, Record{Seq: i + 1, Index: i, Member: member, Stage: 1 + i/4,
			Scheduled: time.Duration(i) * 100 * time.Millisecond, Sent: time.Duration(i) * 100 * time.Millisecond,
			TTFT: ttft, E2EL: ttft + 10*time.Millisecond, InputTokens: 5, OutputTokens: 3})
	}
	return recs
}

func TestPartsSummariseTheirRecords(t *testing.T) {
	a := Analyze(partRecords(), SummarizeOptions{})
	s := &a.Summary
	if len(s.Parts) != 4 {
		t.Fatalf("%d parts, want chat, rag, stage 1 and 2: %+v", len(s.Parts), s.Parts)
	}
	chat := s.Part(MemberRef("chat"))
	if chat == nil || chat.Summary.Requests.Completed != 4 || chat.Summary.TTFT.Max != 13 || chat.Summary.TTFT.Min != 10 {
		t.Fatalf("chat part %+v: want the 4 measured chat requests, TTFT 10..13 ms (not the warmup's 1 ms)", chat)
	}
	m, ok := LookupMetric("mix.rag.ttft.p95")
	if !ok || m.Part != MemberRef("rag") || m.Family != TTFT || m.Unit != Milliseconds {
		t.Fatalf("mix.rag.ttft.p95 = %+v, %v", m, ok)
	}
	want := ComputeStats([]float64{100, 101, 102, 103}).P95
	if v, ok := m.Value(s); !ok || v != want {
		t.Fatalf("mix.rag.ttft.p95 = %v, %v; want %v", v, ok, want)
	}
	run := &Run{Name: "r", Status: StatusOK, Summary: *s, Samples: a.Samples, Requests: a.Requests}
	if xs := m.Samples(run); len(xs) != 4 || xs[0] != 100 {
		t.Fatalf("mix.rag.ttft samples %v, want the 4 rag TTFTs", xs)
	}
	st2, _ := LookupMetric("stage.2.requests.completed")
	if v, ok := st2.Value(s); !ok || v != 4 {
		t.Fatalf("stage.2.requests.completed = %v, %v", v, ok)
	}
	vals := s.Values()
	if vals["stage.1.ttft.max"] != 101 || vals["mix.chat.e2el.min"] != 20 || vals["ttft.max"] != 103 {
		t.Fatalf("values: stage.1.ttft.max %v, mix.chat.e2el.min %v, ttft.max %v", vals["stage.1.ttft.max"], vals["mix.chat.e2el.min"], vals["ttft.max"])
	}
	if got := a.Requests.Member; len(got) != 8 || got[1] != "rag" {
		t.Fatalf("request log members %v", got)
	}
	if got := a.Requests.Stage; len(got) != 8 || got[7] != 2 {
		t.Fatalf("request log stages %v", got)
	}
	f := &File{Runs: []Run{*run}}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	f.Runs[0].Summary.Parts[0].Key = "9lives"
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), "name no part") {
		t.Fatalf("a part with a bad key passed Check: %v", err)
	}
}

func TestPartMetricNames(t *testing.T) {
	for _, bad := range []string{"mix.chat", "mix.9x.ttft.p95", "stage.0.ttft.p95", "stage.01.ttft.p95", "stage.2.server.preemptions", "mix.chat.gpu.util.mean", "stage.1.nope"} {
		if _, ok := LookupMetric(bad); ok {
			t.Errorf("LookupMetric(%q) found a metric", bad)
		}
	}
	m, _ := LookupMetric("mix.code.ttft.p95")
	s := Analyze(partRecords(), SummarizeOptions{}).Summary
	if why := m.WhyNotMeasured(&s); !strings.Contains(why, `mix member "code"`) {
		t.Fatalf("why not measured: %q", why)
	}
	names := PartMetricNames(StageRef(3))
	if len(names) == 0 || !strings.HasPrefix(names[0], "stage.3.") {
		t.Fatalf("names %v", names[:min(3, len(names))])
	}
	for _, n := range names {
		if _, ok := LookupMetric(n); !ok {
			t.Fatalf("%s is listed and not found", n)
		}
	}
	plain := Analyze([]Record{{Sent: 0, TTFT: time.Millisecond, E2EL: 2 * time.Millisecond}}, SummarizeOptions{}).Summary
	if plain.Parts != nil {
		t.Fatalf("a run without members or stages has parts: %+v", plain.Parts)
	}
}

func TestMergeBlocksKeepsParts(t *testing.T) {
	a := Analyze(partRecords(), SummarizeOptions{})
	blocks := []Block{{Summary: a.Summary, Samples: a.Samples}, {Summary: a.Summary, Samples: a.Samples}}
	s, _ := MergeBlocks(blocks)
	rag := s.Part(MemberRef("rag"))
	if len(s.Parts) != 4 || rag == nil || rag.Summary.Requests.Completed != 8 || len(rag.Samples.TTFT) != 8 || rag.Summary.TTFT.Max != 103 {
		t.Fatalf("merged parts %+v", s.Parts)
	}
}
