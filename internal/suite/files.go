package suite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A suite is code, and under CI it may be a pull request's: file("/proc/
// self/environ") would read the job's environment (the GitHub token with
// it) into an assert message that llmgate publishes. So what file() reads
// must be a regular file inside the repository that holds the suite, or,
// outside a repository, inside the suite's own directory tree: no absolute
// path elsewhere, no symlink that leads out, no FIFO (which would hang
// validate), device or directory. A dataset must be a regular file too.

// maxFileSize bounds what file() reads, so a typo such as file("/dev/zero")
// fails instead of exhausting memory.
const maxFileSize = 16 << 20

// fileRoot is where a suite may read files: relative paths start at dir,
// the suite file's directory, and every path must resolve inside root.
type fileRoot struct {
	dir, root string
}

// newFileRoot finds the tree the suite in filename may read: the
// repository that holds it (the nearest directory above it with a .git
// entry), else the suite's own directory. Both are absolute, with
// symlinks resolved.
func newFileRoot(filename string) *fileRoot {
	dir, err := filepath.Abs(filepath.Dir(filename))
	if err != nil {
		return nil
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return &fileRoot{dir: dir, root: root}
}

// what the root is called in messages
func (r *fileRoot) describe() string {
	if r.root == r.dir {
		return "the suite's directory " + r.root
	}
	return "the repository " + r.root
}

// resolve is p (relative to the suite's directory when not absolute) with
// symlinks resolved, as a path relative to the root; a path that leaves the
// root is refused.
func (r *fileRoot) resolve(p string) (string, error) {
	if r == nil {
		return "", errors.New("a suite loaded without a file may read no file")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.dir, abs)
	}
	abs = filepath.Clean(abs)
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside %s; a suite reads files of its own tree only (copy the file into it)", p, r.describe())
	}
	return rel, nil
}

// open opens p for reading inside the root, refusing anything but a
// regular file. It opens through os.Root, so a symlink swapped in after
// resolve cannot lead out, and without blocking, so a FIFO is refused
// instead of waited on.
func (r *fileRoot) open(p string) (*os.File, error) {
	rel, err := r.resolve(p)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if err := regular(f, p); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// read returns the contents of p, at most maxFileSize bytes of them.
func (r *fileRoot) read(p string) ([]byte, error) {
	f, err := r.open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(b) > maxFileSize {
		return nil, fmt.Errorf("%s is larger than %d MiB", p, maxFileSize>>20)
	}
	return b, nil
}

// dataset returns the absolute path of the dataset file p (relative to
// the suite's directory), refusing anything but a regular file. A dataset
// may live outside the suite's tree (a large file on the runner's disk):
// the run only ever sends a file that parses as ShareGPT JSON, never what
// a credentials file or /proc holds.
func (r *fileRoot) dataset(p string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) && r != nil {
		abs = filepath.Join(r.dir, abs)
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := regular(f, p); err != nil {
		return "", err
	}
	return abs, nil
}

// regular refuses an open file that is not a regular file.
func regular(f *os.File, p string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); a suite reads regular files only", p, fileKind(fi.Mode()))
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}
