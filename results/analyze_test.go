package results

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The per-request log holds one entry per measured request, failures by
// index with their kind and reason, and agrees with the summary and the
// samples computed in the same pass.
func TestAnalyzeRequestLog(t *testing.T) {
	recs := handRecords()
	no := false
	recs[4].StructuredValid = &no
	recs[4].FinishReason = "length"
	recs[2].Turn = 1
	recs[3].TraceRow = 7
	recs[3].Scheduled = recs[3].Sent - 5*time.Millisecond // sent 5 ms late
	a := Analyze(recs, SummarizeOptions{})
	want := &RequestLog{
		StartUS:                 []int64{0, 10000, 20000, 30000},
		TTFTUS:                  []int64{10000, 20000, 0, 30000},
		E2ELUS:                  []int64{40000, 30000, 0, 30000},
		ITLMaxUS:                []int64{10000, 10000, 0, 0},
		InputTokens:             []int{10, 10, 0, 5},
		OutputTokens:            []int{4, 2, 0, 1},
		Turn:                    []int{0, 1, 0, 0},
		TraceRow:                []int{0, 0, 7, 0},
		PlannedUS:               []int64{0, 0, 15000, 30000},
		Failures:                []RequestFailure{{Index: 2, Kind: "http", Reason: "http 500: boom"}},
		InvalidStructured:       []int{3},
		InvalidStructuredFinish: []string{"length"},
	}
	if diff := cmp.Diff(want, a.Requests); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
	if got := a.Requests.Len(); got != a.Summary.Requests.Completed+a.Summary.Requests.Failed {
		t.Errorf("log has %d requests, summary counts %d", got, a.Summary.Requests.Completed+a.Summary.Requests.Failed)
	}
	if diff := cmp.Diff([]float64{10, 20, 30}, a.Samples.TTFT); diff != "" {
		t.Errorf("samples TTFT (-want +got):\n%s", diff)
	}
	if a.Lengths != nil {
		t.Errorf("lengths %+v from records that asked for none", a.Lengths)
	}
	recs[1].RequestedInputTokens, recs[1].RequestedOutputTokens = 8, 4
	recs[2].RequestedInputTokens = 12
	recs[3].RequestedInputTokens = 99 // failed: not counted
	if got, want := Analyze(recs, SummarizeOptions{}).Lengths, (&Lengths{InputRequested: 10, InputActual: 10, OutputRequested: 4, OutputActual: 4, InputActualMax: 10, InputRequestedMax: 12}); *got != *want {
		t.Errorf("lengths %+v, want %+v", got, want)
	}
	if a.Summary.TTFT.Max != 30 || a.Summary.Client.MeanInFlight <= 0 {
		t.Errorf("summary TTFT max %v, mean in flight %v", a.Summary.TTFT.Max, a.Summary.Client.MeanInFlight)
	}
}

// syntheticRecords makes n measured requests shaped like a real run:
// 512-token prompts, ~128-token answers, TTFT tens of ms, ITL around 10 ms,
// one in a hundred failed.
func syntheticRecords(n int) []Record {
	r := rand.New(rand.NewPCG(1, 2))
	recs := make([]Record, n)
	for i := range recs {
		sent := time.Duration(i) * 7 * time.Millisecond
		out := 64 + r.IntN(128)
		ttft := time.Duration(20e6 + r.Float64()*60e6)
		itl := make([]float64, 8) // the file keeps ITLs in a histogram: their number does not change its size
		for j := range itl {
			itl[j] = 8 + 4*r.Float64()
		}
		e2el := ttft + time.Duration(float64(out-1)*10e6)
		recs[i] = Record{Seq: i, Scheduled: sent, Sent: sent + time.Duration(r.IntN(200000)), TTFT: ttft, E2EL: e2el,
			Finished: sent + e2el + time.Millisecond, ITL: itl, InputTokens: 480 + r.IntN(64), OutputTokens: out}
		if i%100 == 99 {
			recs[i] = Record{Seq: i, Scheduled: sent, Sent: sent, Finished: sent + time.Second, ErrorKind: "http", Error: "http 503: the server is overloaded"}
		}
	}
	return recs
}

func TestCollapseScalarArrays(t *testing.T) {
	in := `{
  "a": [
    1,
    -2.5e-3,
    true,
    null
  ],
  "s": [
    "x [1, 2]",
    "y\\"
  ],
  "o": [
    {
      "n": [
        3
      ]
    }
  ],
  "e": [],
  "q": "[\"not an array\"]"
}`
	want := `{
  "a": [1,-2.5e-3,true,null],
  "s": [
    "x [1, 2]",
    "y\\"
  ],
  "o": [
    {
      "n": [3]
    }
  ],
  "e": [],
  "q": "[\"not an array\"]"
}`
	if diff := cmp.Diff(want, string(collapseScalarArrays([]byte(in)))); diff != "" {
		t.Errorf("collapsed (-want +got):\n%s", diff)
	}
}

// TestResultsFileSize100k writes the results file of one run of 100,000
// requests (summary, samples and per-request log) and holds it to 10 MB.
func TestResultsFileSize100k(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100k-request file")
	}
	a := Analyze(syntheticRecords(100_000), SummarizeOptions{})
	f := &File{Version: SchemaVersion, Runs: []Run{{Name: "big", Status: StatusOK, Summary: a.Summary, Samples: a.Samples, Requests: a.Requests}}}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	log := &File{Version: SchemaVersion, Runs: []Run{{Name: "big", Requests: a.Requests}}}
	var lb bytes.Buffer
	if err := log.Write(&lb); err != nil {
		t.Fatal(err)
	}
	t.Logf("results file for 100k requests: %.2f MB (per-request log alone %.2f MB)", float64(buf.Len())/1e6, float64(lb.Len())/1e6)
	if buf.Len() > 10e6 {
		t.Errorf("results file for 100k requests is %.2f MB, want at most 10 MB", float64(buf.Len())/1e6)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a.Requests, back.Runs[0].Requests); diff != "" {
		t.Errorf("request log does not survive a round trip (-want +got):\n%s", diff)
	}
}
