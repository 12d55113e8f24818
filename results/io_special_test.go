package results

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmgate/llmgate/untrusted"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteAtomicFollowsSymlink checks a symlink output is written through:
// the link stays a link and its target gets the content.
func TestWriteAtomicFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.json is no longer a symlink (mode %v, err %v)", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	// a dangling link creates its target
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("made.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(dangling, writeString("made")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(b) != "made" {
		t.Errorf("dangling link's target holds %q", b)
	}
}

// TestWriteAtomicWritesThroughFIFO checks a FIFO (what /dev/stdout or a
// process substitution is) is written directly and stays a FIFO.
func TestWriteAtomicWritesThroughFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteAtomic(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced (mode %v, err %v)", fi.Mode(), err)
	}
}

// TestWriteAtomicRefusesDirectory checks a directory is refused with an
// error that says so, and nothing is left behind in it.
func TestWriteAtomicRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	err := WriteAtomic(dir, writeString("x"))
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("err = %v, want 'is a directory'", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d entries in the directory", len(ents))
	}
}

// TestWriteAtomicMasksSecrets checks every file llmgate writes has the
// process's secrets masked, in their JSON-escaped form too.
func TestWriteAtomicMasksSecrets(t *testing.T) {
	m := untrusted.NewMasker()
	m.Add(`tok<en>-12345`)
	defer untrusted.Use(m)()
	f := sampleFile()
	f.Runs[0].Error = "server said: tok<en>-12345 and hf_abcdefghijklmnopqrstuv"
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "12345") || strings.Contains(string(b), "hf_abcdefghij") {
		t.Errorf("secret in results file:\n%s", b)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatalf("masked file does not read back: %v", err)
	}
	if back.Runs[0].Error != "server said: *** and hf_***" {
		t.Errorf("error reads back as %q", back.Runs[0].Error)
	}
}
