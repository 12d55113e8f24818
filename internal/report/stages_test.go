package report

import (
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// stagedFile is one run of 30 requests in two stages (10 at 10/s, then
// 20 at 20/s) drawn from members a and b.
func stagedFile() *results.File {
	var recs []results.Record
	at := time.Duration(0)
	for i := range 30 {
		stage, gap := 1, 100*time.Millisecond
		if i >= 10 {
			stage, gap = 2, 50*time.Millisecond
		}
		member := "a"
		if i%3 == 0 {
			member = "b"
		}
		recs = append(recs, results.Record{Seq: i, Index: i, Stage: stage, Member: member, Scheduled: at, Sent: at,
			TTFT: 5 * time.Millisecond, E2EL: 9 * time.Millisecond, InputTokens: 8, OutputTokens: 3})
		at += gap
	}
	a := results.Analyze(recs, results.SummarizeOptions{})
	return &results.File{Runs: []results.Run{{Name: "staged", Scenario: "staged", Status: results.StatusOK,
		Summary: a.Summary, Samples: a.Samples, Requests: a.Requests}}}
}

func TestReportsShowStagesAndMembers(t *testing.T) {
	f := stagedFile()
	var b strings.Builder
	if err := HTML(&b, f, nil, compare.Compare(nil, f, compare.Config{})); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"staged: requests sent per second, by stage", ">stage 1<", ">stage 2<", ">mix.a<", ">stage.2<", "<h3>By turn, input length, mix member and stage</h3>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	// stage 2 starts 1 s in, where its first request was sent
	if r := stageRules(&f.Runs[0]); len(r) != 2 || r[0].X != 0 || r[1].X != 1 {
		t.Fatalf("stage rules %+v, want stage 1 at 0 s and stage 2 at 1 s", r)
	}
	var term strings.Builder
	if err := RunTable(&term, f); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"by turn, input length, mix member and stage:", "mix.a", "mix.b", "stage.1", "stage.2"} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("the run table lacks %q:\n%s", want, term.String())
		}
	}

}
