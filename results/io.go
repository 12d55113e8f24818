package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrVersion is wrapped by the error Read returns for a file whose major
// version this build does not understand.
var ErrVersion = errors.New("unsupported results file version")

// Read decodes a results file from r, refusing one whose major version
// differs from SchemaVersion's and one that fails Check (duplicate run
// names, negative, NaN or absurd values). Unknown fields are ignored, so
// files from a newer minor version still read.
func Read(r io.Reader) (*File, error) {
	var f File
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode results file: %w", err)
	}
	if err := checkVersion(f.Version); err != nil {
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// checkVersion accepts versions with SchemaVersion's major number.
func checkVersion(v string) error {
	if v == "" {
		return fmt.Errorf("%w: the file has no version field; is it an llmgate results file?", ErrVersion)
	}
	major, ok := majorOf(v)
	want, _ := majorOf(SchemaVersion)
	switch {
	case !ok:
		return fmt.Errorf("%w: version %q is not major.minor", ErrVersion, v)
	case major > want:
		return fmt.Errorf("%w: results file version %s is newer than this llmgate understands (%d.x); upgrade llmgate", ErrVersion, v, want)
	case major < want:
		return fmt.Errorf("%w: results file version %s is older than this llmgate understands (%d.x); re-run the suite to produce a new file", ErrVersion, v, want)
	}
	return nil
}

func majorOf(v string) (int, bool) {
	m, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(m)
	return n, err == nil && n >= 0
}

// Write encodes f as indented JSON with Version set to SchemaVersion; f
// itself is not modified.
func (f *File) Write(w io.Writer) error {
	out := *f
	out.Version = SchemaVersion
	if out.Runs == nil {
		out.Runs = []Run{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("encode results file: %w", err)
	}
	return nil
}

// ReadFile reads the results file at path.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results file: %w", err)
	}
	defer fh.Close()
	f, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("read results file %s: %w", path, err)
	}
	return f, nil
}

// WriteFile writes f to path atomically: it writes a temporary file in the
// same directory, syncs it and renames it over path, so a reader (or a crash)
// never sees a half-written file.
func WriteFile(path string, f *File) error {
	if err := WriteAtomic(path, f.Write); err != nil {
		return fmt.Errorf("write results file %s: %w", path, err)
	}
	return nil
}

// WriteAtomic writes path through write into a temporary file beside it,
// synced, made 0644 and renamed over path, so a reader never sees half a
// file and a failure leaves the old one in place.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
