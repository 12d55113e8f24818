package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadJSONL(t *testing.T) {
	in := `{"prompt": "Once upon a time", "output_tokens": 30}

{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}
`
	got, err := Read(strings.NewReader(in), FormatJSONL)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Line: 1, Prompt: "Once upon a time", OutputTokens: 30},
		{Line: 3, Messages: []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

func TestReadCSV(t *testing.T) {
	in := "id,Prompt,output_tokens\n" +
		"1,\"Say \"\"hi\"\", then stop\",12\n" +
		"2,\"a prompt\non two lines\",\n" +
		"3,plain,7\n"
	got, err := Read(strings.NewReader(in), FormatCSV)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Line: 2, Prompt: `Say "hi", then stop`, OutputTokens: 12},
		{Line: 3, Prompt: "a prompt\non two lines"},
		{Line: 5, Prompt: "plain", OutputTokens: 7},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

func TestReadErrors(t *testing.T) {
	secret := "hunter2-secret-text"
	for _, c := range []struct{ name, format, in, want string }{
		{"format", "sharegpt", "", `unknown prompt file format "sharegpt"`},
		{"empty", FormatJSONL, "\n", "the file holds no prompt"},
		{"no prompt", FormatJSONL, `{"output_tokens": 3}`, "line 1: no prompt and no messages"},
		{"unknown field", FormatJSONL, `{"prompt": "x", "max_tokens": 3}`, `line 1: not a prompt row`},
		{"both", FormatJSONL, `{"prompt": "x", "messages": [{"role": "user", "content": "y"}]}`, "line 1: both prompt and messages"},
		{"bad length", FormatJSONL, `{"prompt": "x", "output_tokens": 0}`, "line 1: output_tokens = 0"},
		{"fraction", FormatJSONL, `{"prompt": "x", "output_tokens": 1.5}`, "line 1: not a prompt row (a JSON object with \"prompt\" or \"messages\", and optionally \"output_tokens\"): output_tokens cannot be number 1.5"},
		{"not json", FormatJSONL, `{"prompt": "x"}` + "\n" + secret, "line 2: not a prompt row"},
		{"two objects", FormatJSONL, `{"prompt": "x"} {}`, "line 1: more follows"},
		{"long line", FormatJSONL, `{"prompt": "` + strings.Repeat("a", MaxLineBytes) + `"}`, "line 1: longer than 4 MiB"},
		{"no header", FormatCSV, secret + ",1\n", "line 1: the header names no prompt column"},
		{"short row", FormatCSV, "prompt,output_tokens\nx\n", "line 2: wrong number of fields"},
		{"bad quote", FormatCSV, "prompt\n\"" + secret + "\"x\n", "line 2:"},
		{"bad count", FormatCSV, "prompt,output_tokens\n" + secret + ",many\n", "line 2: output_tokens is not a whole number"},
		{"empty prompt", FormatCSV, "prompt,output_tokens\n,3\n", "line 2: the prompt is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.in), c.format)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Read: %v, want an error containing %q", err, c.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "aaaa") {
				t.Errorf("the error quotes the file: %v", err)
			}
		})
	}
}

func TestReadLimits(t *testing.T) {
	row := `{"prompt": "x"}` + "\n"
	if _, err := read(strings.NewReader(strings.Repeat(row, 100)), FormatJSONL, 50*len(row)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("read past the limit: %v", err)
	}
	if e, err := read(strings.NewReader(strings.Repeat(row, 50)), FormatJSONL, 50*len(row)); err != nil || len(e) != 50 {
		t.Errorf("read at the limit: %d entries, %v", len(e), err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "p.jsonl")
	if err := os.WriteFile(p, []byte(row+"{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, FormatJSONL); err == nil || !strings.HasPrefix(err.Error(), p+":2: ") {
		t.Errorf("ReadFile: %v, want %s:2: first", err, p)
	}
	if _, err := ReadFile(dir, FormatJSONL); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile(dir): %v", err)
	}
}
