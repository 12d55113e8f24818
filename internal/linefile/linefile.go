// Package linefile opens the line-oriented files a suite names (prompt
// files, traces) as hostile input: regular files only, of a bounded size,
// opened without blocking on a FIFO, with errors that name the file and
// the line ("path:12: ...") and never quote the file's text.
package linefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Error is a problem on one line of a file.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// At is an *Error on line.
func At(line int, format string, args ...any) error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Open opens path for reading without blocking (a FIFO would hang the
// open); Check says whether it may be read.
func Open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// Check refuses f, called name, unless it is a regular file of at most max
// bytes; what names the kind of file in the message ("a trace") and advice,
// when not "", follows it ("; cut it to the part the run replays").
func Check(f *os.File, name string, max int64, what, advice string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", name)
	}
	if fi.Size() > max {
		return fmt.Errorf("%s is %d MiB, larger than the %d MiB %s may be%s", name, fi.Size()>>20, max>>20, what, advice)
	}
	return nil
}

// Named puts name before err: "name:12: msg" for an *Error, else
// "name: err".
func Named(name string, err error) error {
	var le *Error
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %s", name, le.Line, le.Msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}
