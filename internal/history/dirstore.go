package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmgate/llmgate/untrusted"
)

// The directory store's layout: plain JSON files, one per entry and one
// per acceptance, never rewritten, so that the store can live on a git
// branch of its own and `git diff` shows what each run added.
//
//	DIR/llmgate-history.json                 the store's format version
//	DIR/entries/YYYY/MM/ID.json              an entry: runs, statuses, estimates
//	DIR/entries/YYYY/MM/ID.results.json      its results file (llmgate report reads it)
//	DIR/accepted/ID.json                     an acceptance
const (
	markerName   = "llmgate-history.json"
	entriesDir   = "entries"
	acceptedDir  = "accepted"
	resultsExt   = ".results.json"
	maxEntrySize = 64 << 20 // an entry's index; its results file is bounded by results.Read's own checks
)

// marker is the content of llmgate-history.json.
type marker struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

const markerFormat = "llmgate-history"

// DirStore is a history kept in a directory.
type DirStore struct{ dir string }

// OpenDir opens the history in dir, creating it when create is set.
func OpenDir(dir string, create bool) (*DirStore, error) {
	s := &DirStore{dir: dir}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no history at %s: the directory does not exist (llmgate history add creates it)", dir)
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a directory; a history store is a directory or a postgres:// URL", dir)
	}
	if err := s.checkMarker(create); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *DirStore) String() string { return s.dir }

// Close does nothing: a directory holds no connection.
func (s *DirStore) Close() error { return nil }

// checkMarker reads llmgate-history.json, writing it first when create is
// set and it is missing. A directory without one is a history only while
// it holds nothing else (a fresh checkout of an empty branch).
func (s *DirStore) checkMarker(create bool) error {
	path := filepath.Join(s.dir, markerName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if !create {
			if _, err := os.Stat(filepath.Join(s.dir, entriesDir)); err == nil {
				return fmt.Errorf("%s holds entries but no %s; is it an llmgate history?", s.dir, markerName)
			}
			return nil
		}
		data, _ := json.MarshalIndent(marker{Format: markerFormat, Version: FormatVersion}, "", "  ")
		if err := writeNew(path, append(data, '\n')); err != nil && !errors.Is(err, ErrExists) {
			return err
		}
		if b, err = os.ReadFile(path); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Format != markerFormat {
		return fmt.Errorf("%s: not an llmgate history marker", path)
	}
	if m.Version > FormatVersion {
		return fmt.Errorf("%s is a history of format %d, newer than this llmgate understands (%d); upgrade llmgate", s.dir, m.Version, FormatVersion)
	}
	return nil
}

// Add writes the entry's results file, then its index: a reader lists
// index files only, so it never sees an entry without its results.
func (s *DirStore) Add(_ context.Context, e *Entry) error {
	dir := filepath.Join(s.dir, entriesDir, e.Time.Format("2006"), e.Time.Format("01"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	index, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	base := filepath.Join(dir, e.ID)
	if err := writeNew(base+resultsExt, e.payload); err != nil && !errors.Is(err, ErrExists) {
		return err
	}
	if err := writeNew(base+".json", append(index, '\n')); err != nil {
		if errors.Is(err, ErrExists) {
			return fmt.Errorf("entry %s: %w", e.ID, ErrExists)
		}
		return err
	}
	return nil
}

// Entries reads every index file under entries/ (and its results file when
// q asks), checking each as hostile input.
func (s *DirStore) Entries(_ context.Context, q Query) ([]*Entry, error) {
	var out []*Entry
	root := filepath.Join(s.dir, entriesDir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == root {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, resultsExt) || strings.HasPrefix(name, ".") {
			return nil
		}
		e, err := readEntry(path)
		if err != nil {
			return err
		}
		if q.Suite != "" && e.Suite != q.Suite {
			return nil
		}
		if q.WithResults {
			payload, err := readLimited(strings.TrimSuffix(path, ".json")+resultsExt, 1<<40)
			if err != nil {
				return fmt.Errorf("entry %s: %w", untrusted.Short(e.ID, 80), err)
			}
			if err := e.loadPayload(payload); err != nil {
				return err
			}
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortEntries(out)
	return out, nil
}

// readEntry reads and checks one index file; its name must be its ID.
func readEntry(path string) (*Entry, error) {
	b, err := readLimited(path, maxEntrySize)
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s: not a history entry: %w", path, err)
	}
	if err := e.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if filepath.Base(path) != e.ID+".json" {
		return nil, fmt.Errorf("%s: the file is named other than its entry %s", path, untrusted.Short(e.ID, 80))
	}
	return &e, nil
}

// Accept writes the acceptance as a file of its own.
func (s *DirStore) Accept(_ context.Context, a *Acceptance) error {
	dir := filepath.Join(s.dir, acceptedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := writeNew(filepath.Join(dir, a.ID+".json"), append(b, '\n')); err != nil {
		if errors.Is(err, ErrExists) {
			return fmt.Errorf("acceptance %s: %w", a.ID, ErrExists)
		}
		return err
	}
	return nil
}

// Acceptances reads every file under accepted/.
func (s *DirStore) Acceptances(_ context.Context) ([]*Acceptance, error) {
	dir := filepath.Join(s.dir, acceptedDir)
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Acceptance
	for _, d := range des {
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".json") || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, d.Name())
		b, err := readLimited(path, 1<<20)
		if err != nil {
			return nil, err
		}
		var a Acceptance
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("%s: not an acceptance: %w", path, err)
		}
		if err := a.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if d.Name() != a.ID+".json" {
			return nil, fmt.Errorf("%s: the file is named other than its acceptance %s", path, untrusted.Short(a.ID, 80))
		}
		out = append(out, &a)
	}
	sortAcceptances(out)
	return out, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}

// writeNew writes data to path, which must not exist yet: through a
// temporary file beside it, synced, then hard-linked into place, so that a
// reader never sees half a file and two writers never replace each other
// (the second gets ErrExists). The temporary file is removed either way.
func writeNew(path string, data []byte) (err error) {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		return err
	}
	return nil
}
