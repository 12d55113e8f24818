package main

import (
	"fmt"
	"io"
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

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	err := results.WriteAtomic(path, func(w io.Writer) error {
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
