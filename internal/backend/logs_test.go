package backend

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The probe: the container log file was written through a symlink
// (ctr.vllm.log -> any file), so a server's output could overwrite any
// file the runner may write. A link, a file with other hard links, a FIFO
// or a directory is refused; a file of its own is emptied and written.
func TestLogFileIsAFileOfItsOwn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "ctr.vllm.log")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "ctr.hard.log")
	if err := os.Link(victim, hard); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "ctr.fifo.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "ctr.dir.log")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{link: "is a symlink", hard: "hard links", fifo: "not a regular file", sub: "is a directory"} {
		if _, err := newLogFollower(nil, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("newLogFollower(%s) = %v, want %q", filepath.Base(path), err, want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target was written: %q", b)
	}
	own := filepath.Join(dir, "ctr.own.log")
	if err := os.WriteFile(own, []byte("an older run's log"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := newLogFollower(nil, own)
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close()
	if fi, _ := os.Stat(own); fi.Size() != 0 {
		t.Errorf("an existing log was not emptied: %d bytes", fi.Size())
	}
}
