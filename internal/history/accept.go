package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmgate/llmgate/untrusted"
)

// NewAcceptance records that the change of suite's run and metric whose
// new level starts at entry was accepted by by, at at, for reason.
func NewAcceptance(suite, run, metric string, entry *Entry, by, reason string, at time.Time) (*Acceptance, error) {
	a := &Acceptance{Format: FormatVersion, Suite: suite, Run: run, Metric: metric, Entry: entry.ID, Commit: entry.Commit,
		By: by, Reason: reason, At: at.UTC().Truncate(time.Microsecond)}
	sum := sha256.Sum256([]byte(strings.Join([]string{a.Suite, a.Run, a.Metric, a.Entry, a.By, a.Reason, a.At.Format(time.RFC3339Nano)}, "\x00")))
	a.ID = a.At.Format("20060102T150405Z") + "-" + hex.EncodeToString(sum[:6])
	if err := a.check(); err != nil {
		return nil, err
	}
	return a, nil
}

// check refuses an acceptance without a series, a who or a why.
func (a *Acceptance) check() error {
	if a.Format > FormatVersion {
		return fmt.Errorf("acceptance %s is of history format %d, newer than this llmgate understands (%d); upgrade llmgate", untrusted.Short(a.ID, 80), a.Format, FormatVersion)
	}
	for _, s := range []string{a.ID, a.Suite, a.Run, a.Metric, a.Entry, a.Commit, a.By, a.Reason} {
		if strings.ContainsRune(s, 0) {
			return errors.New("an acceptance's text holds a NUL byte")
		}
	}
	switch {
	case a.Format != FormatVersion:
		return fmt.Errorf("unknown history format %d", a.Format)
	case a.ID == "" || a.Suite == "" || a.Run == "" || a.Metric == "" || a.Entry == "":
		return errors.New("an acceptance names no suite, run, metric or entry")
	case strings.TrimSpace(a.By) == "":
		return errors.New("an acceptance must say who accepted it")
	case strings.TrimSpace(a.Reason) == "":
		return errors.New("an acceptance must say why")
	case strings.ContainsAny(a.ID, `/\`) || strings.HasPrefix(a.ID, "."):
		return errors.New("an acceptance's id is not a file name")
	}
	return nil
}
