package compare

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// TestDesignOf checks that the design is chosen from what the files are:
// the two sides of an A/B job are paired; files whose runs have blocks
// but are not the two sides of one job (two candidate sides of different
// jobs) are not, and no row of theirs is tested over pairs.
func TestDesignOf(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}, {Metric: "ttft.mean", Relative: true, Amount: 0.10}}}
	base, cand := abFiles(1, 8, 25, 1.25)
	_, otherCand := abFiles(2, 8, 25, 1)
	for _, tt := range []struct {
		name      string
		base, cur *results.File
		want      Design
	}{
		{"the two sides of one job", base, cand, Paired},
		{"two candidate sides", otherCand, cand, Unpaired},
		{"no baseline", nil, cand, Unpaired},
	} {
		if got := DesignOf(tt.base, tt.cur); got != tt.want {
			t.Errorf("%s: DesignOf = %s, want %s", tt.name, got, tt.want)
		}
		c := Compare(tt.base, tt.cur, cfg)
		if c.Design != tt.want {
			t.Errorf("%s: Compare's design %s, want %s", tt.name, c.Design, tt.want)
		}
		for _, r := range c.Rows {
			if pairedTest(r.Test) != (tt.want == Paired) {
				t.Errorf("%s: %s tested by %s under the %s design", tt.name, r.Metric.Name, r.Test, tt.want)
			}
		}
	}
}

// nearBandAB finds an A/B job 11% slower that one job leaves inconclusive,
// asking for an A/B rerun.
func nearBandAB(t *testing.T, cfg Config) (base, cand *results.File) {
	t.Helper()
	for seed := uint64(10); seed < 300; seed++ {
		b, c := abFiles(seed, 8, 25, 1.11)
		if r := Compare(b, c, cfg).Rows[0]; r.Verdict == Inconclusive && r.Rerun {
			return b, c
		}
	}
	t.Fatal("no job near the band was left inconclusive")
	return nil, nil
}

// TestConfirmKeepsThePairedDesign checks that a rerun of an A/B comparison
// is tested as its first job was, over block pairs: Confirm, given only a
// candidate side, does not test it unpaired against the first job's
// baseline side; ConfirmAB judges both jobs' pairs; and ConfirmAB of files
// that are not two sides of a job confirms them unpaired, as Confirm does.
func TestConfirmKeepsThePairedDesign(t *testing.T) {
	cfg := Config{Tolerances: []Tolerance{{Metric: "ttft.p95", Relative: true, Amount: 0.10}}}
	base, cand := nearBandAB(t, cfg)
	rb, rc := abFiles(4, 8, 25, 1.25)

	got := Confirm(base, cand, rc, cfg).Rows[0]
	if got.Confirm != nil || got.Verdict != Inconclusive || !strings.Contains(got.Reason.Raw(), "A/B rerun of both sides") {
		t.Errorf("Confirm of an A/B job by a candidate side alone: %s, confirm %v, %q; want it left inconclusive, saying why", got.Verdict, got.Confirm != nil, got.Reason)
		if got.Confirm != nil {
			t.Errorf("the rerun was tested by %s over %d+%d", got.Confirm.Test, got.Confirm.N1, got.Confirm.N2)
		}
	}
	got = ConfirmAB(base, cand, rb, rc, cfg).Rows[0]
	if got.Confirm == nil || !pairedTest(got.Test) || !pairedTest(got.Confirm.Test) || got.N1 != 16 {
		t.Errorf("ConfirmAB: %s over %d pairs, want a paired test over 16", got.Test, got.N1)
	}

	// Not two sides of one job: ConfirmAB is Confirm.
	strip := func(f *results.File) *results.File {
		g := *f
		g.AB = nil
		g.Runs = []results.Run{f.Runs[0]}
		g.Runs[0].Blocks = nil
		return &g
	}
	sb, sc, src := strip(base), strip(cand), strip(rc)
	want, got2 := Confirm(sb, sc, src, cfg).Rows[0], ConfirmAB(sb, sc, strip(rb), src, cfg).Rows[0]
	if got2.Verdict != want.Verdict || got2.Test != want.Test || got2.Change != want.Change {
		t.Errorf("ConfirmAB of separate jobs: %s %s %+.3f, Confirm: %s %s %+.3f", got2.Verdict, got2.Test, got2.Change, want.Verdict, want.Test, want.Change)
	}
}
