package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// FormatVersion is the version of the entries and acceptances this build
// writes; a store holding a newer one is refused on read.
const FormatVersion = 1

// Entry is one results file in a history: where and when it was measured,
// each run's status and the estimate of every metric it has, and the
// results file itself (trimmed of its time series), so that any metric can
// be tested again from its per-request samples.
type Entry struct {
	// Format is FormatVersion.
	Format int `json:"llmgate_history"`
	// ID names the entry: the measurement time, the short commit and the
	// start of Digest ("20261102T120000Z-4f2a9c1-0c9d1e2f3a4b"). Adding
	// the same results file twice gives the same ID, so the second add is
	// refused.
	ID string `json:"id"`
	// Suite is the suite's name.
	Suite string `json:"suite"`
	// Commit and Ref are the environment's git_sha and git_ref.
	Commit string `json:"commit,omitempty"`
	Ref    string `json:"ref,omitempty"`
	// Time is when the results were measured (the file's created time);
	// entries are ordered by it. Added is when the entry was added.
	Time  time.Time `json:"time"`
	Added time.Time `json:"added"`
	// Source is the path of the results file as given to add.
	Source string `json:"source,omitempty"`
	// Digest is the SHA-256 of the stored results file.
	Digest string `json:"digest"`
	// Partial is true when the results file was cut short.
	Partial bool `json:"partial,omitempty"`
	// Environment is where the numbers were measured.
	Environment results.Environment `json:"environment"`
	// Runs holds one record per run of the file, in its order.
	Runs []Run `json:"runs"`

	// payload is the stored results file, exactly as written.
	payload []byte
	// results is payload decoded; nil until a store loaded it.
	results *results.File
}

// Run is one run of an entry.
type Run struct {
	Name     string            `json:"name"`
	Scenario string            `json:"scenario,omitempty"`
	Params   map[string]string `json:"params,omitempty"`
	// Status is the run's results status; only StatusOK runs are evidence.
	Status results.Status `json:"status"`
	// Reasons say why a run is not ok: its self-check failures or error.
	Reasons []string `json:"reasons,omitempty"`
	// Estimates is every metric the run has, by name.
	Estimates map[string]Estimate `json:"estimates,omitempty"`
}

// Healthy reports whether the run's numbers may be used as evidence.
func (r *Run) Healthy() bool { return r.Status == results.StatusOK }

// Estimate is a metric's value in one run, as the gate judges it
// (compare.EstimateRun), with its 95% interval when it has one.
type Estimate struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	// N is the number of per-request samples; 0 for a summary value.
	N         int    `json:"n,omitempty"`
	Estimator string `json:"estimator"`
}

// Bounds returns the interval, NaN where there is none.
func (e Estimate) Bounds() (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	if e.Lo != nil {
		lo = *e.Lo
	}
	if e.Hi != nil {
		hi = *e.Hi
	}
	return lo, hi
}

// Run returns the entry's run called name, or nil.
func (e *Entry) Run(name string) *Run {
	for i := range e.Runs {
		if e.Runs[i].Name == name {
			return &e.Runs[i]
		}
	}
	return nil
}

// Results returns the entry's results file; nil when the store was asked
// for the index only.
func (e *Entry) Results() *results.File { return e.results }

// ShortCommit is the commit's first seven characters.
func (e *Entry) ShortCommit() string { return shortCommit(e.Commit) }

func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// AddOptions overrides what NewEntry reads from the results file.
type AddOptions struct {
	// Commit and Ref, when set, replace environment.git_sha and git_ref.
	Commit, Ref string
	// Source is the path the file was read from.
	Source string
	// Added is when the entry is added (now, truncated to microseconds).
	Added time.Time
}

// NewEntry makes the entry of a results file: every run's status and
// estimates, and the file trimmed of the server and GPU time series (the
// summaries of both stay). The file must have passed results.Read. A file
// whose suite has no name, or whose names hold a NUL byte (which
// PostgreSQL cannot store, so the two stores would differ), is refused.
func NewEntry(f *results.File, o AddOptions) (*Entry, error) {
	if f.Suite.Name == "" {
		return nil, errors.New("the results file names no suite; history groups entries by suite")
	}
	trimmed := *f
	trimmed.Runs = slices.Clone(f.Runs)
	for i := range trimmed.Runs {
		trimmed.Runs[i].ServerSeries, trimmed.Runs[i].GPUSeries = nil, nil
	}
	if o.Commit != "" {
		trimmed.Environment.GitSHA = untrusted.String(o.Commit)
	}
	if o.Ref != "" {
		trimmed.Environment.GitRef = untrusted.String(o.Ref)
	}
	var buf bytes.Buffer
	if err := trimmed.Write(&buf); err != nil {
		return nil, err
	}
	payload := untrusted.MaskJSON(buf.Bytes()) // inside its strings only: the file keeps its structure
	sum := sha256.Sum256(payload)
	e := &Entry{
		Format:      FormatVersion,
		Suite:       trimmed.Suite.Name,
		Commit:      trimmed.Environment.GitSHA.Raw(),
		Ref:         trimmed.Environment.GitRef.Raw(),
		Time:        measuredAt(&trimmed, o.Added),
		Added:       o.Added.UTC().Truncate(time.Microsecond),
		Source:      o.Source,
		Digest:      hex.EncodeToString(sum[:]),
		Partial:     trimmed.Partial,
		Environment: trimmed.Environment,
		payload:     payload,
		results:     &trimmed,
	}
	if e.Added.IsZero() {
		e.Added = time.Now().UTC().Truncate(time.Microsecond)
	}
	e.ID = entryID(e.Time, e.Commit, e.Digest)
	for i := range trimmed.Runs {
		e.Runs = append(e.Runs, newRun(&trimmed.Runs[i]))
	}
	if err := e.check(); err != nil {
		return nil, err
	}
	return e, nil
}

// measuredAt is when the file was measured: its created time, else its
// first run's start, else the time it is added; in microseconds, which
// both stores keep exactly.
func measuredAt(f *results.File, added time.Time) time.Time {
	t := f.Created
	if t.IsZero() {
		for _, r := range f.Runs {
			if !r.Started.IsZero() && (t.IsZero() || r.Started.Before(t)) {
				t = r.Started
			}
		}
	}
	if t.IsZero() {
		t = added
	}
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

var notHex = regexp.MustCompile(`[^0-9a-f]`)

// entryID is "TIME-COMMIT-DIGEST": sortable by time, readable by commit,
// unique by content, and safe in a file name whatever the commit says.
func entryID(t time.Time, commit, digest string) string {
	c := notHex.ReplaceAllString(strings.ToLower(shortCommit(commit)), "")
	if c == "" {
		c = "nocommit"
	}
	return t.Format("20060102T150405Z") + "-" + c + "-" + digest[:12]
}

// newRun records one run: status, reasons and every metric's estimate
// (none for a failed run, which measured nothing).
func newRun(r *results.Run) Run {
	out := Run{Name: r.Name, Scenario: r.Scenario, Status: r.Status}
	if len(r.Params) > 0 {
		out.Params = r.Params
	}
	out.Reasons = append(out.Reasons, r.InvalidReasons...)
	if r.Error != "" {
		out.Reasons = append(out.Reasons, r.Error.Raw())
	}
	if r.Status == results.StatusFailed {
		return out
	}
	for name := range r.Summary.Values() {
		m, ok := results.LookupMetric(name)
		if !ok {
			continue
		}
		est, ok := compare.EstimateRun(r, m)
		if !ok {
			continue
		}
		if out.Estimates == nil {
			out.Estimates = map[string]Estimate{}
		}
		out.Estimates[name] = fromCompare(est)
	}
	return out
}

func fromCompare(e compare.Estimate) Estimate {
	out := Estimate{Value: e.Value, N: e.N, Estimator: e.Estimator.String()}
	if !math.IsNaN(e.Lo) && !math.IsInf(e.Lo, 0) {
		lo := e.Lo
		out.Lo = &lo
	}
	if !math.IsNaN(e.Hi) && !math.IsInf(e.Hi, 0) {
		hi := e.Hi
		out.Hi = &hi
	}
	return out
}

// maxValue bounds every estimate read from a store: past it a value is
// garbage, not a measurement (results.Check's limits are lower still).
const maxValue = 1e15

// check refuses an entry no add could have written: the checks a store
// makes of every entry it reads, since anyone who can push to the history
// branch can write one.
func (e *Entry) check() error {
	var errs []string
	bad := func(format string, a ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Sprintf(format, a...))
		}
	}
	if e.Format != FormatVersion {
		if e.Format > FormatVersion {
			return fmt.Errorf("entry %s is of history format %d, newer than this llmgate understands (%d); upgrade llmgate", untrusted.Short(e.ID, 80), e.Format, FormatVersion)
		}
		bad("unknown history format %d", e.Format)
	}
	if want := entryID(e.Time, e.Commit, e.Digest+strings.Repeat("0", 12)); len(e.Digest) != 64 || e.ID != want {
		bad("its id does not match its time, commit and digest")
	}
	if e.Suite == "" {
		bad("it names no suite")
	}
	texts := []string{e.ID, e.Suite, e.Commit, e.Ref, e.Source}
	env := e.Environment
	texts = append(texts, env.GitSHA.Raw(), env.GitRef.Raw(), env.Image.Raw(), env.ImageDigest.Raw(), env.VLLMVersion.Raw(), env.Model.Raw(), env.GPU.Raw(), env.TargetKind.Raw(), env.Host.Raw(), env.LLMGateVersion.Raw())
	seen := map[string]bool{}
	for i := range e.Runs {
		r := &e.Runs[i]
		if r.Name == "" || seen[r.Name] {
			bad("run %d has no name or the name of another", i)
		}
		seen[r.Name] = true
		if !r.Status.Valid() {
			bad("run %s has the unknown status %s", untrusted.Short(r.Name, 60), untrusted.Short(string(r.Status), 20))
		}
		texts = append(texts, r.Name, r.Scenario)
		texts = append(texts, r.Reasons...)
		for k, v := range r.Params {
			texts = append(texts, k, v)
		}
		for name, est := range r.Estimates {
			texts = append(texts, name, est.Estimator)
			for _, v := range []*float64{&est.Value, est.Lo, est.Hi} {
				if v != nil && !(math.Abs(*v) <= maxValue) {
					bad("run %s, %s: the value %v is not a measurement", untrusted.Short(r.Name, 60), untrusted.Short(name, 60), *v)
				}
			}
			if est.N < 0 {
				bad("run %s, %s: negative sample count", untrusted.Short(r.Name, 60), untrusted.Short(name, 60))
			}
		}
	}
	for _, s := range texts {
		if strings.ContainsRune(s, 0) {
			bad("a name holds a NUL byte")
			break
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid history entry %s: %s", untrusted.Short(e.ID, 80), strings.Join(errs, "; "))
	}
	return nil
}

// loadPayload decodes a stored results file into e, refusing one whose
// digest differs from the entry's or that fails results.Read.
func (e *Entry) loadPayload(payload []byte) error {
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != e.Digest {
		return fmt.Errorf("entry %s: its results file does not match its digest (edited by hand?)", untrusted.Short(e.ID, 80))
	}
	f, err := results.Read(bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("entry %s: %w", untrusted.Short(e.ID, 80), err)
	}
	e.payload, e.results = payload, f
	return nil
}
