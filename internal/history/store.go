package history

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// ErrExists is wrapped by Add's error when the store already holds an
// entry of that ID: the same results file was added before.
var ErrExists = errors.New("already in the history")

// Store keeps a history's entries and acceptances. Both implementations
// (a directory, PostgreSQL) give the same answers to the same calls.
type Store interface {
	// Add appends an entry; it never replaces one (ErrExists).
	Add(ctx context.Context, e *Entry) error
	// Entries returns the entries of q, ordered by Time, then ID.
	Entries(ctx context.Context, q Query) ([]*Entry, error)
	// Accept records an acceptance; it never replaces one.
	Accept(ctx context.Context, a *Acceptance) error
	// Acceptances returns every acceptance, ordered by At, then ID.
	Acceptances(ctx context.Context) ([]*Acceptance, error)
	// String names the store for messages, with no password.
	String() string
	// Close releases the store.
	Close() error
}

// Query selects entries.
type Query struct {
	// Suite, when set, keeps the entries of that suite only.
	Suite string
	// WithResults loads each entry's results file too (Entry.Results),
	// which the rolling baseline needs and check does not.
	WithResults bool
}

// Acceptance records that a change point was looked at and accepted: the
// series, the entry its new level starts at, who, when and why.
type Acceptance struct {
	Format int    `json:"llmgate_history"`
	ID     string `json:"id"`
	Suite  string `json:"suite"`
	Run    string `json:"run"`
	Metric string `json:"metric"`
	// Entry is the ID of the first entry of the accepted level; Commit
	// its commit, for people.
	Entry  string `json:"entry"`
	Commit string `json:"commit,omitempty"`
	By     string `json:"by"`
	// At is when it was accepted, in microseconds.
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// Open opens the store named by spec: a postgres:// or postgresql:// URL
// for PostgreSQL, else a directory. create makes a directory that does not
// exist yet (for add and accept); reading one that does not exist is an
// error, so that a typo does not read as an empty history.
func Open(ctx context.Context, spec string, create bool) (Store, error) {
	if IsPostgres(spec) {
		return OpenPostgres(ctx, spec)
	}
	return OpenDir(spec, create)
}

// IsPostgres reports whether spec names a PostgreSQL store.
func IsPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// sortEntries orders entries by Time, then ID, as both stores return them.
func sortEntries(es []*Entry) { slices.SortFunc(es, compareEntries) }

func compareEntries(a, b *Entry) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// sortEntriesLess reports whether a comes before b.
func sortEntriesLess(a, b *Entry) bool { return compareEntries(a, b) < 0 }

func sortAcceptances(as []*Acceptance) {
	slices.SortFunc(as, func(a, b *Acceptance) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
