package judge

import (
	"errors"
	"reflect"

	"github.com/llmgate/llmgate/results"
)

// RecordedError is an error that the runner also wrote into runs of the
// results file (results.Run.Error): the judge does not report it a second
// time when every run named in Runs is in the file judged and records an
// error. The type, not the error's text, says so. It goes outside any
// other mark (Recorded(backend.Unavailable(err)), not the other way): an
// error that unwraps to several (a mark that adds a sentinel, fmt.Errorf
// with several %w) is reported whole unless all its parts are recorded,
// and a sentinel never is.
type RecordedError struct {
	// Runs names the runs of the file that record Err.
	Runs []string
	// Err is the error recorded; never nil.
	Err error
}

func (e *RecordedError) Error() string { return e.Err.Error() }

func (e *RecordedError) Unwrap() error { return e.Err }

// Recorded marks err as recorded into the named runs of the results file;
// nil when err is nil.
func Recorded(err error, runs ...string) error {
	if err == nil {
		return nil
	}
	return &RecordedError{Runs: runs, Err: err}
}

// joinType is the type of what errors.Join returns (unexported there).
var joinType = reflect.TypeOf(errors.Join(errors.New("")))

// unrecorded is what of err no run of cur records: nil when all of it is
// (a RecordedError whose runs cur records, an error that wraps one, or a
// join of such errors), the errors joined in err that are not recorded
// when err is an errors.Join, and err itself otherwise. errors.As alone
// would not do: it finds a RecordedError anywhere in a join and so would
// take the unrecorded errors joined with it for recorded. An error of
// fmt.Errorf with several %w is kept whole when a part is unrecorded, so
// that its own words are not lost.
func unrecorded(cur *results.File, err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *RecordedError:
		if records(cur, e) {
			return nil
		}
		return unrecorded(cur, e.Err)
	case interface{ Unwrap() []error }:
		var rest []error
		for _, part := range e.Unwrap() {
			if u := unrecorded(cur, part); u != nil {
				rest = append(rest, u)
			}
		}
		switch {
		case len(rest) == 0:
			return nil
		case reflect.TypeOf(err) == joinType:
			return errors.Join(rest...)
		}
	case interface{ Unwrap() error }:
		if unrecorded(cur, e.Unwrap()) == nil {
			return nil
		}
	}
	return err
}

// records reports whether every run rec names is in cur and records an
// error.
func records(cur *results.File, rec *RecordedError) bool {
	if cur == nil || len(rec.Runs) == 0 {
		return false
	}
	for _, name := range rec.Runs {
		if !recordsError(cur, name) {
			return false
		}
	}
	return true
}

// recordsError reports whether cur has a run called name with an error.
func recordsError(cur *results.File, name string) bool {
	for i := range cur.Runs {
		if cur.Runs[i].Name == name && cur.Runs[i].Error != "" {
			return true
		}
	}
	return false
}
