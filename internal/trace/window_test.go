package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rowsAt makes a trace of rows arriving at the given ms.
func rowsAt(t *testing.T, ms ...int) *Trace {
	t.Helper()
	var sb strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&sb, `{"timestamp": %d, "input_length": 10, "output_length": 2}`+"\n", m)
	}
	tr, err := Read(strings.NewReader(sb.String()), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func lines(rows []Row) []int {
	out := []int{}
	for _, r := range rows {
		out = append(out, r.Line)
	}
	return out
}

func TestWindowRows(t *testing.T) {
	tr := rowsAt(t, 0, 100, 200, 300, 400, 500, 600)
	for _, c := range []struct {
		name string
		w    Window
		want []int
	}{
		{"all", Window{}, []int{1, 2, 3, 4, 5, 6, 7}},
		{"requests", Window{Requests: 3}, []int{1, 2, 3}},
		{"start", Window{Start: 250 * time.Millisecond, Requests: 2}, []int{4, 5}},
		{"warmup", Window{Warmup: 2, Requests: 2}, []int{1, 2, 3, 4}},
		{"skip", Window{Start: 150 * time.Millisecond, Skip: 2, Warmup: 1, Requests: 2}, []int{5, 6, 7}},
		{"skip past the end", Window{Skip: 9, Requests: 2}, []int{}},
		{"past the end", Window{Start: 350 * time.Millisecond, Requests: 10}, []int{5, 6, 7}},
		{"start past the end", Window{Start: time.Hour, Requests: 10}, []int{}},
		// measured rows within 250 ms of the first measured one (at 100)
		{"duration", Window{Warmup: 1, Duration: 250 * time.Millisecond}, []int{1, 2, 3, 4}},
		// twice as fast: 250 ms of replay hold 500 ms of trace
		{"duration scaled", Window{Duration: 250 * time.Millisecond, TimeScale: 2}, []int{1, 2, 3, 4, 5}},
		{"duration and requests", Window{Duration: time.Hour, Requests: 2}, []int{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, lines(c.w.Rows(tr))); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
		})
	}
}

func TestWindowOffsets(t *testing.T) {
	tr := rowsAt(t, 1000, 1100, 1400)
	w := Window{TimeScale: 4}
	got := w.Offsets(w.Rows(tr))
	want := []time.Duration{0, 25 * time.Millisecond, 100 * time.Millisecond}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("offsets (-want +got):\n%s", d)
	}
}

func TestSummarize(t *testing.T) {
	// blocks of 4 tokens; rows 1 and 2 share three of four blocks, row 3
	// shares its second block's id with row 1 but not its first, so that
	// block is shared content but not a reusable prefix
	in := `{"timestamp": 0, "input_length": 16, "output_length": 2, "hash_ids": [1, 2, 3, 4]}
{"timestamp": 1000, "input_length": 16, "output_length": 4, "hash_ids": [1, 2, 3, 5]}
{"timestamp": 3000, "input_length": 6, "output_length": 6, "hash_ids": [9, 2]}
{"timestamp": 4000, "input_length": 10, "output_length": 8, "hash_ids": [7]}
`
	tr, err := Read(strings.NewReader(in), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	got := Summarize(tr.Rows, 4)
	// shared: rows 1 and 2 blocks 1-3 (12 + 12), row 3's block 2 (2 tokens) = 26 of 48
	// reusable: row 2's first three blocks = 12 of 48
	want := Summary{Requests: 4, Span: 4 * time.Second, MeanInput: 12, MeanOutput: 5, InputTokens: 48, Shared: 26.0 / 48, Reusable: 12.0 / 48}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	// the first two rows alone: 24 of 32 shared, 12 of 32 reusable
	got = Summarize(tr.Rows[:2], 4)
	if got.Shared != 24.0/32 || got.Reusable != 12.0/32 {
		t.Errorf("first two rows: shared %g reusable %g, want 0.75 0.375", got.Shared, got.Reusable)
	}
	// an id repeated in one prompt is not shared with itself
	tr, err = Read(strings.NewReader(`{"timestamp": 0, "input_length": 8, "output_length": 2, "hash_ids": [1, 1]}`), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	if got := Summarize(tr.Rows, 4); got.Shared != 0 || got.Reusable != 0 {
		t.Errorf("one row: shared %g reusable %g, want 0 0", got.Shared, got.Reusable)
	}
	if got := Summarize(nil, 0); got != (Summary{}) {
		t.Errorf("no rows: %+v", got)
	}
}
