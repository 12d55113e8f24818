package linefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.jsonl")
	if err := os.WriteFile(small, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{small, ""},
		{big, "big.jsonl is 3 MiB, larger than the 2 MiB a trace may be; cut it"},
		{fifo, "fifo is not a regular file"},
		{dir, "is not a regular file"},
	} {
		f, err := Open(c.path) // returns at once for a FIFO with no writer
		if err != nil {
			t.Fatalf("open %s: %v", c.path, err)
		}
		err = Check(f, c.path, 2<<20, "a trace", "; cut it")
		f.Close()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
}

func TestNamed(t *testing.T) {
	if got := Named("p.jsonl", At(12, "output_length = %d is not a length", -1)).Error(); got != "p.jsonl:12: output_length = -1 is not a length" {
		t.Errorf("line error: %q", got)
	}
	other := errors.New("unexpected EOF")
	err := Named("p.jsonl", other)
	if err.Error() != "p.jsonl: unexpected EOF" || !errors.Is(err, other) {
		t.Errorf("other error: %q", err)
	}
}
