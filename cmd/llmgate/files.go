package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// readResults reads a results file, mapping any problem to a usage error
// (exit 2); role ("baseline", "current", ...) names it in the message.
func readResults(path, role string) (*results.File, error) {
	f, err := results.ReadFile(path)
	if err != nil {
		return nil, usagef("reading %s results: %w", role, err)
	}
	return f, nil
}

// writeFileAtomic writes the text data (markdown, HTML) to path through a
// temporary file and a rename, secrets masked (results.WriteAtomic).
func writeFileAtomic(path string, data []byte) error {
	return writeWith(results.WriteAtomic, path, data)
}

// writeJSONFileAtomic is writeFileAtomic for a JSON document, masked
// inside its strings only (results.WriteJSONAtomic).
func writeJSONFileAtomic(path string, data []byte) error {
	return writeWith(results.WriteJSONAtomic, path, data)
}

func writeWith(write func(string, func(io.Writer) error) error, path string, data []byte) error {
	err := write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// siblingPath replaces path's extension with ext: results.json → results.md.
func siblingPath(path, ext string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ext
}

// output is one file a command will write, and the flag that named it.
type output struct{ flag, path string }

// checkOutputs refuses, as bad usage (exit 2), an output that is a
// directory, that is the same file as one of inputs (through links too),
// or that another output also names: `run s.hcl -o s.hcl` would replace the
// suite, `gate --baseline b.json -o b.json` the baseline. Empty paths are
// skipped.
func checkOutputs(outs []output, inputs ...string) error {
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return usagef("%s %s is a directory; name a file inside it", o.flag, o.path)
		}
		for _, in := range inputs {
			if in != "" && sameFile(o.path, in) {
				return usagef("%s %s would overwrite the input %s; write the output elsewhere", o.flag, o.path, in)
			}
		}
		for _, other := range outs[:i] {
			if other.path != "" && sameFile(o.path, other.path) {
				return usagef("%s and %s both name %s; give each output its own file", other.flag, o.flag, o.path)
			}
		}
	}
	return nil
}

// sameFile reports whether a and b name one file: the same inode when both
// exist, else the same absolute path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
