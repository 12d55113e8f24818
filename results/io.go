package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
)

// ErrVersion is wrapped by the error Read returns for a file whose major
// version this build does not understand.
var ErrVersion = errors.New("unsupported results file version")

// Read decodes a results file from r, refusing an input over the input
// limit (MaxInputBytes), one that is not a single JSON document within
// inputLimits or that repeats a key (CheckJSON), one whose version is not
// major.minor with SchemaVersion's major, and one that fails Check
// (duplicate run names, negative, NaN or absurd values, text that is not
// printable). Unknown fields are ignored, so files from a newer minor
// version still read.
func Read(r io.Reader) (*File, error) {
	data, err := readBounded(r, "results file")
	if err != nil {
		return nil, err
	}
	return decode(data)
}

func decode(data []byte) (*File, error) {
	if err := CheckJSON(data, inputLimits); err != nil {
		return nil, fmt.Errorf("decode results file: %w", err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
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

// versionForm is the one spelling of a version: major.minor in decimal
// digits, without signs or leading zeros.
var versionForm = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`)

// checkVersion accepts versions major.minor with SchemaVersion's major number.
func checkVersion(v string) error {
	if v == "" {
		return fmt.Errorf("%w: the file has no version field; is it an llmgate results file?", ErrVersion)
	}
	if !versionForm.MatchString(v) {
		return fmt.Errorf("%w: version %q is not major.minor (such as %q)", ErrVersion, v, SchemaVersion)
	}
	major, _ := majorOf(v)
	want, _ := majorOf(SchemaVersion)
	switch {
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

// Write encodes f as indented JSON (arrays of numbers on one line) with
// Version set to SchemaVersion. Its strings are first made to pass the
// checks Read applies (CleanText, in f too), and its numbers made ones
// JSON holds (CleanNumbers, in f too: a NaN or an infinity absent or 0);
// f is not modified otherwise.
func (f *File) Write(w io.Writer) error {
	f.CleanText()
	f.CleanNumbers()
	out := *f
	out.Version = SchemaVersion
	if out.Runs == nil {
		out.Runs = []Run{}
	}
	raw, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode results file: %w", err)
	}
	if _, err := w.Write(append(collapseScalarArrays(raw), '\n')); err != nil {
		return fmt.Errorf("write results file: %w", err)
	}
	return nil
}

// ReadFile reads the results file at path (see Read); a file over the
// input limit is refused before any of it is read.
func ReadFile(path string) (*File, error) {
	data, err := ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("read results file: %w", err)
	}
	f, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read results file %s: %w", path, err)
	}
	return f, nil
}

// WriteFile writes f to path atomically: it writes a temporary file in the
// same directory, syncs it and renames it over path, so a reader (or a crash)
// never sees a half-written file.
func WriteFile(path string, f *File) error {
	if err := WriteJSONAtomic(path, f.Write); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	return nil
}

// WriteError is WriteFile's error: the results file at Path could not be
// written, so whatever is there is not this run's.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("write results file %s: %v", e.Path, e.Err) }

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// WriteAtomic writes the text that write produces to path, with every
// secret the process knows masked (untrusted.Mask). A regular file, or a
// path that does not exist yet, is written through a temporary file beside
// it, synced, made 0644 and renamed over path, so a reader never sees half
// a file and a failure leaves the old one in place. A symlink is followed
// and its target written the same way, so the link stays a link. A device
// or a FIFO (-o /dev/stdout, /dev/null) is written directly, never
// replaced; a directory or another kind of file is refused.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return writeAtomic(path, write, func(b []byte) []byte { return []byte(untrusted.Mask(string(b))) })
}

// WriteJSONAtomic is WriteAtomic for a JSON document: secrets are masked
// inside its string values only (untrusted.MaskJSON), so the file keeps
// its structure whatever the secrets are.
func WriteJSONAtomic(path string, write func(io.Writer) error) error {
	return writeAtomic(path, write, untrusted.MaskJSON)
}

func writeAtomic(path string, write func(io.Writer) error, mask func([]byte) []byte) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	data := mask(buf.Bytes())
	dest, direct, err := writeTarget(path)
	if err != nil {
		return err
	}
	if direct {
		return writeDirect(dest, data)
	}
	return renameInto(dest, data)
}

// writeTarget resolves path for WriteAtomic: the path to write (a symlink's
// target) and whether to write it directly rather than by rename.
func writeTarget(path string) (dest string, direct bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) { // a dangling link: create its target
			link, lerr := os.Readlink(path)
			if lerr != nil {
				return "", false, lerr
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(path), link)
			}
			return writeTarget(link)
		}
		if err != nil {
			return "", false, err
		}
		if fi, err = os.Stat(resolved); err != nil {
			return "", false, err
		}
		path = resolved
	}
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		return path, false, nil
	case mode.IsDir():
		return "", false, fmt.Errorf("%s is a directory; name a file inside it", path)
	case mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		return path, true, nil
	default:
		return "", false, fmt.Errorf("%s is not a regular file (%s); llmgate will not replace it", path, mode.Type())
	}
}

// writeDirect writes data into an existing device or FIFO.
func writeDirect(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// renameInto writes data to a temporary file beside path, syncs it, makes
// it 0644 and renames it over path.
func renameInto(path string, data []byte) (err error) {
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
	if _, err := tmp.Write(data); err != nil {
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
