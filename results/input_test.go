package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The probe: a 300 MB results file (samples.ttft with 75 M numbers) was
// read whole, 5 GB of memory and a minute later. A file over the limit is
// now refused from its size, before a byte is read: the error gives the
// size, which only the stat knows (a sparse file, so the test writes
// nothing).
func TestReadFileRefusesOverLimitBeforeReading(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(300 << 20); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	_, err = ReadFile(path)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "300 MiB, over the limit of 256 MiB") || !strings.Contains(err.Error(), "--max-input-size") {
		t.Fatalf("ReadFile = %v, want ErrTooLarge naming the size, the limit and the flag", err)
	}
	// a raised limit lets a file through to the decoder
	small := filepath.Join(t.TempDir(), "small.json")
	if err := os.WriteFile(small, []byte(`{"version":"1.1","runs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	restore := SetMaxInputBytes(16)
	if _, err := ReadFile(small); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over a 16-byte limit: %v", err)
	}
	SetMaxInputBytes(1 << 10)
	if _, err := ReadFile(small); err != nil {
		t.Errorf("with the limit raised: %v", err)
	}
	restore()
}

// A pipe or a device has no size: it is read up to the limit and refused
// past it.
func TestReadRefusesAStreamOverTheLimit(t *testing.T) {
	defer SetMaxInputBytes(1 << 10)()
	_, err := Read(strings.NewReader(`{"version":"1.1","runs":[]}` + strings.Repeat(" ", 2<<10)))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read = %v, want ErrTooLarge", err)
	}
	if _, err := Read(strings.NewReader(`{"version":"1.1","runs":[]}`)); err != nil {
		t.Errorf("a small stream: %v", err)
	}
	if _, err := ReadInput(t.TempDir()); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadInput(dir) = %v", err)
	}
}

// Within the size limit, a file still cannot make the decoder allocate
// without bound or read a key twice: CheckJSON refuses it first.
func TestCheckJSONLimitsAndDuplicates(t *testing.T) {
	lim := JSONLimits{MaxDepth: 4, MaxString: 10, MaxArray: 3, MaxValues: 20}
	for _, tt := range []struct{ in, want string }{
		{`{"a":[1,2,3]}`, ""},
		{`{"a":"1234567890","b":{"c":[[]]}}`, ""},
		{`[1,2,3,4]`, "($[3]): an array of more than 3 elements"},
		{`{"a":"12345678901"}`, "a string of 11 bytes"},
		{`[[[[[]]]]]`, "nested more than 4 levels"},
		{`[[1,1,1],[1,1,1],[1,1,1]]`, ""},
		{`{"a":[1,1,1],"b":[1,1,1],"c":[1,1,1],"d":[1,1,1],"e":[1,1,1]}`, "more than 20 values"},
		{`{"runs":[],"runs":[1]}`, `the key "runs" appears twice`},
		{`{"runs":[],"Runs":[1]}`, `the key "Runs" appears twice`},
		{`{"name":1,"na\u006de":2}`, `the key "name" appears twice`},
		{"{\"runs\":[],\"run\u017f\":[1]}", "appears twice"}, // ſ folds to s, as encoding/json matches it
		{`{"a":{"x":1},"b":{"x":1}}`, ""},                    // the same key in two objects is fine
		{`{"a":1} {"a":2}`, "data after the end"},
		{`{"a":01}`, "want , or }"},
		{`{"a":1.}`, "bad number"},
		{`{"a":"\x"}`, "bad escape"},
		{"{\"a\":\"\x01\"}", "control character"},
		{`{"a":tru}`, "unexpected"},
		{`{"a":1`, "unexpected end"},
		{`{"a" 1}`, "want :"},
	} {
		err := CheckJSON([]byte(tt.in), lim)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckJSON(%s) = %v", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckJSON(%s) = %v, want %q", tt.in, err, tt.want)
		case err != nil && !errors.Is(err, ErrJSON):
			t.Errorf("CheckJSON(%s) = %v does not wrap ErrJSON", tt.in, err)
		}
	}
}

// The probe: a results file with two "runs" keys was read as its last.
func TestReadRefusesDuplicateRuns(t *testing.T) {
	in := `{"version":"1.1","suite":{"name":"s"},"runs":[],"runs":[{"name":"x","scenario":"x","status":"ok"}]}`
	if _, err := Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), `"runs" appears twice`) {
		t.Errorf("Read = %v, want the duplicate refused", err)
	}
	// the same file as vllm bench wrote it is refused on import too
	if _, err := ReadVLLMBench(strings.NewReader(`{"completed":1,"completed":2}`)); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("ReadVLLMBench = %v", err)
	}
}

// What a file within the limits costs to read: BenchmarkReadSamples reads
// a results file with n TTFT samples and reports its size.
func BenchmarkReadSamples(b *testing.B) {
	for _, n := range []int{1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("samples=%d", n), func(b *testing.B) {
			var sb strings.Builder
			sb.WriteString(`{"version":"1.1","suite":{"name":"s"},"runs":[{"name":"r","scenario":"r","status":"ok","samples":{"tpot":[],"e2el":[],"ttft":[`)
			for i := range n {
				if i > 0 {
					sb.WriteByte(',')
				}
				fmt.Fprintf(&sb, "%d.%03d", 10+i%500, i%1000)
			}
			sb.WriteString(`]}}]}`)
			data := []byte(sb.String())
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
