package trace

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadMooncake(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1100, "output_length": 5, "hash_ids": [0, 1, 2]}

{"timestamp": 27, "input_length": 600, "output_length": 7, "hash_ids": [0, 3], "extra": true}
`
	tr, err := Read(strings.NewReader(in), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 1, At: 0, Input: 1100, Output: 5, Hashes: []int64{0, 1, 2}},
		{Line: 3, At: 27 * time.Millisecond, Input: 600, Output: 7, Hashes: []int64{0, 3}},
	}
	if d := cmp.Diff(want, tr.Rows); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	// the digest is the file's: the same bytes give the same one, others another
	same, _ := Read(strings.NewReader(in), FormatMooncake)
	other, _ := Read(strings.NewReader(in+"\n"), FormatMooncake)
	if !strings.HasPrefix(tr.Digest, "sha256:") || len(tr.Digest) != 71 || same.Digest != tr.Digest || other.Digest == tr.Digest {
		t.Errorf("digests %q, %q, %q: want one of the bytes", tr.Digest, same.Digest, other.Digest)
	}
}

func TestReadAzure(t *testing.T) {
	in := "\ufeffTIMESTAMP,ContextTokens,GeneratedTokens\r\n" +
		"2023-11-16 18:15:46.6805900,374,44\r\n" +
		"2023-11-16 18:15:50.9951690,396,109\r\n"
	tr, err := Read(strings.NewReader(in), FormatAzure)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 2, At: 0, Input: 374, Output: 44},
		{Line: 3, At: 4314579 * time.Microsecond, Input: 396, Output: 109},
	}
	if d := cmp.Diff(want, tr.Rows); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	// columns in another order, another case, one more, a zone
	in = "generatedtokens,Model,timestamp,contexttokens\n7,x,2024-05-10 00:00:01.5+00:00,9\n8,y,2024-05-10T00:00:00Z,10\n"
	tr, err = Read(strings.NewReader(in), FormatAzure)
	if err != nil {
		t.Fatal(err)
	}
	want = []Row{{Line: 3, Input: 10, Output: 8}, {Line: 2, At: 1500 * time.Millisecond, Input: 9, Output: 7}}
	if d := cmp.Diff(want, tr.Rows); d != "" || tr.Reordered != 1 {
		t.Errorf("rows (-want +got):\n%s\nreordered %d, want 1", d, tr.Reordered)
	}
}

func TestReadJSONL(t *testing.T) {
	in := `{"timestamp": 10.5, "input_tokens": 600, "output_tokens": 7, "hash_ids": [4, 5]}
{"timestamp": 11, "prompt": "Tell me a story", "output_tokens": 9}
{"timestamp": 12, "messages": [{"role": "user", "content": "Hi"}], "input_tokens": 12, "output_tokens": 3}
`
	tr, err := Read(strings.NewReader(in), FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 1, At: 0, Input: 600, Output: 7, Hashes: []int64{4, 5}},
		{Line: 2, At: 500 * time.Microsecond, Input: 4, Output: 9, Estimated: true, Prompt: "Tell me a story"},
		{Line: 3, At: 1500 * time.Microsecond, Input: 12, Output: 3, Messages: []Message{{Role: "user", Content: "Hi"}}},
	}
	if d := cmp.Diff(want, tr.Rows); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
}

// TestOutOfOrder: rows are replayed in time order, equal times in file
// order, and the rows that came late in the file are counted.
func TestOutOfOrder(t *testing.T) {
	in := `{"timestamp": 50, "input_length": 1, "output_length": 1}
{"timestamp": 10, "input_length": 2, "output_length": 1}
{"timestamp": 50, "input_length": 3, "output_length": 1}
{"timestamp": 10, "input_length": 4, "output_length": 1}
{"timestamp": 60, "input_length": 5, "output_length": 1}
`
	tr, err := Read(strings.NewReader(in), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, r := range tr.Rows {
		lines = append(lines, r.Line)
	}
	if d := cmp.Diff([]int{2, 4, 1, 3, 5}, lines); d != "" || tr.Reordered != 2 {
		t.Errorf("order (-want +got):\n%s\nreordered %d, want 2", d, tr.Reordered)
	}
	if tr.Rows[0].At != 0 || tr.Rows[4].At != 50*time.Millisecond {
		t.Errorf("At = %v .. %v, want 0 .. 50ms after the earliest row", tr.Rows[0].At, tr.Rows[4].At)
	}
}

// TestReadErrors: hostile or broken input is refused with the line and
// what is wrong.
func TestReadErrors(t *testing.T) {
	long := `{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [` + strings.Repeat("1,", MaxLineBytes/2) + `1]}`
	for _, c := range []struct {
		name, format, in, want string
	}{
		{"format", "sharegpt", "", `unknown trace format "sharegpt"`},
		{"empty", FormatMooncake, "\n\n", "the trace has no rows"},
		{"not json", FormatMooncake, "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\nhello\n", "line 2: not a Mooncake row: invalid JSON"},
		{"two objects", FormatMooncake, `{"timestamp": 0, "input_length": 1, "output_length": 1} {}`, "line 1: not a Mooncake row: more follows"},
		{"array", FormatMooncake, `[1]`, "line 1: not a Mooncake row: a row is a JSON object, not array"},
		{"no input", FormatMooncake, `{"timestamp": 0, "output_length": 1}`, "line 1: no input_length"},
		{"no timestamp", FormatMooncake, `{"input_length": 1, "output_length": 1}`, "line 1: no timestamp"},
		{"fraction", FormatMooncake, `{"timestamp": 0, "input_length": 1.5, "output_length": 1}`, "line 1: not a Mooncake row: input_length must be a whole number, not number 1.5"},
		{"string length", FormatMooncake, `{"timestamp": 0, "input_length": "7", "output_length": 1}`, "input_length must be a whole number, not string"},
		{"zero output", FormatMooncake, `{"timestamp": 0, "input_length": 7, "output_length": 0}`, "line 1: output_length = 0: an answer has at least 1 token"},
		{"huge input", FormatMooncake, `{"timestamp": 0, "input_length": 99999999, "output_length": 1}`, "input_length = 99999999 is longer than any model's context"},
		{"huge hash", FormatMooncake, `{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [1e30]}`, "hash_ids must be a whole number"},
		{"far timestamp", FormatMooncake, `{"timestamp": 1e300, "input_length": 1, "output_length": 1}`, "line 1: timestamp = 1e+300 is not a time"},
		{"long line", FormatMooncake, `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n" + long, "line 2: longer than 4 MiB"},
		{"unknown field", FormatJSONL, `{"timestamp": 0, "input_length": 1, "output_tokens": 1}`, `line 1: not an llmgate trace row: json: unknown field "input_length"`},
		{"prompt and hashes", FormatJSONL, `{"timestamp": 0, "prompt": "x", "output_tokens": 1, "hash_ids": [1]}`, "line 1: hash_ids with a prompt"},
		{"prompt and messages", FormatJSONL, `{"timestamp": 0, "prompt": "x", "messages": [{"role": "user", "content": "y"}], "output_tokens": 1}`, "line 1: both prompt and messages"},
		{"no lengths", FormatJSONL, `{"timestamp": 0, "output_tokens": 1}`, "line 1: no input_tokens"},
		{"empty message", FormatJSONL, `{"timestamp": 0, "messages": [{"role": "user"}], "output_tokens": 1}`, "line 1: messages[0] needs a role and a content"},
		{"no header", FormatAzure, "2023-11-16 18:15:46.6805900,374,44\n", `line 1: the header "2023-11-16 18:15:46.6805900,374,44" does not name the columns`},
		{"short row", FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374\n", "line 2: 2 fields, but the header on line 1 names 3"},
		{"bad time", FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n\n18:15:46,374,44\n", `line 3: TIMESTAMP "18:15:46" is not a time`},
		{"bad count", FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,many,44\n", `line 2: ContextTokens "many" is not a whole number`},
		{"quoted", FormatAzure, "TIMESTAMP,ContextTokens,GeneratedTokens\n\"2023-11-16 18:15:46\",1,44\n", "line 2: quoted CSV fields are not read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in), c.format)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Read: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"timestamp": 0, "input_length": 1, "output_length": 1}`+"\n{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, FormatMooncake); err == nil || !strings.HasPrefix(err.Error(), p+":2: not a Mooncake row") {
		t.Errorf("ReadFile: %v, want an error starting %s:2:", err, p)
	}
	if _, err := ReadFile(dir, FormatMooncake); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile(dir): %v, want not a regular file", err)
	}
	big := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(big, FormatMooncake); err == nil || !strings.Contains(err.Error(), "larger than the 256 MiB") {
		t.Errorf("ReadFile(big): %v, want too large", err)
	}
}

// TestReadTooLargeStream: a stream past MaxFileBytes is refused as too
// large, not as a cut last line.
func TestReadTooLargeStream(t *testing.T) {
	row := `{"timestamp": 0, "input_length": 1, "output_length": 1}` + "\n"
	const limit = 100 << 10
	r := &repeatReader{s: row, n: limit/len(row) + 1} // the last row is cut by the limit
	if _, err := read(r, FormatMooncake, limit); err == nil || !strings.Contains(err.Error(), "larger than 102400 bytes") {
		t.Errorf("read: %v, want larger than 102400 bytes", err)
	}
	r = &repeatReader{s: row, n: limit / len(row)}
	if tr, err := read(r, FormatMooncake, limit); err != nil || len(tr.Rows) != limit/len(row) {
		t.Errorf("read under the limit: %v", err)
	}
}

type repeatReader struct {
	s   string
	n   int
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if r.n == 0 {
			if w == 0 {
				return 0, io.EOF
			}
			break
		}
		c := copy(p[w:], r.s[r.off:])
		w += c
		if r.off += c; r.off == len(r.s) {
			r.off, r.n = 0, r.n-1
		}
	}
	return w, nil
}
