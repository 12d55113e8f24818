package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// DefaultMaxInputBytes is the largest results file, merge input or import
// llmgate reads unless told otherwise: about four times the file of a
// million-request run.
const DefaultMaxInputBytes = 256 << 20

// ErrTooLarge is wrapped by the error for an input over the input limit.
var ErrTooLarge = errors.New("input too large")

// maxInput is the input limit in bytes (SetMaxInputBytes).
var maxInput atomic.Int64

func init() { maxInput.Store(DefaultMaxInputBytes) }

// MaxInputBytes is the current input limit.
func MaxInputBytes() int64 { return maxInput.Load() }

// SetMaxInputBytes sets the input limit for the process (a command's
// --max-input-size) and returns a function that puts the previous one
// back; n <= 0 means DefaultMaxInputBytes.
func SetMaxInputBytes(n int64) (restore func()) {
	if n <= 0 {
		n = DefaultMaxInputBytes
	}
	prev := maxInput.Swap(n)
	return func() { maxInput.Store(prev) }
}

// tooLarge says that an input is over the limit and how to raise it.
func tooLarge(what string, size int64) error {
	limit := MaxInputBytes()
	if size > 0 {
		return fmt.Errorf("%w: %s is %s, over the limit of %s (raise it with --max-input-size)", ErrTooLarge, what, sizeText(size), sizeText(limit))
	}
	return fmt.Errorf("%w: %s is over the limit of %s (raise it with --max-input-size)", ErrTooLarge, what, sizeText(limit))
}

// sizeText is n bytes in MiB when that is at least 1, else in bytes.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readBounded reads all of r up to the input limit; more is an error.
func readBounded(r io.Reader, what string) ([]byte, error) {
	limit := MaxInputBytes()
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(what, 0)
	}
	return data, nil
}

// ReadInput reads the file at path for decoding: a regular file over the
// input limit is refused from its size, before anything is read; a pipe or
// device is read up to the limit; a directory is refused.
func ReadInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case fi.Mode().IsRegular() && fi.Size() > MaxInputBytes():
		return nil, tooLarge(path, fi.Size())
	case fi.Mode().IsRegular():
		// one allocation of the file's size, not io.ReadAll's doublings
		buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
		if _, err := buf.ReadFrom(io.LimitReader(f, MaxInputBytes()+1)); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if int64(buf.Len()) > MaxInputBytes() { // it grew since the stat
			return nil, tooLarge(path, 0)
		}
		return buf.Bytes(), nil
	}
	return readBounded(f, path)
}
