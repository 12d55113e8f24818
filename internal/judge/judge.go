package judge

import (
	"errors"
	"fmt"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
)

// ErrRerunBaseline is wrapped by Judge's error when the files are the two
// sides of an A/B job and the rerun lacks its baseline side.
var ErrRerunBaseline = errors.New("the confirming A/B rerun lacks its baseline side")

// Input is what Judge judges.
type Input struct {
	// Baseline is the file judged against; nil judges the asserts only.
	Baseline *results.File
	// Current is the file judged; never nil.
	Current *results.File
	// Rerun, when set, is the confirming rerun of the runs whose changes a
	// single run could not call (compare.Comparison.RerunRuns); it decides
	// them with the first run (compare.Confirm). Nil: they stay
	// inconclusive.
	Rerun *results.File
	// RerunBaseline is the baseline side of a confirming A/B rerun: with
	// Baseline and Current the two sides of an A/B job (compare.Paired),
	// Rerun is its candidate side and both decide over their block pairs
	// (compare.ConfirmAB).
	RerunBaseline *results.File
	// Config is the bands, alpha and what fails the gate.
	Config compare.Config
	// AllowDifferent judges a baseline that is not comparable (Comparable)
	// anyway, with a note; otherwise Judge refuses it.
	AllowDifferent bool
	// RunErr is a problem outside the files (the run's error: a target
	// that did not start, an interruption, runs missing from given
	// results); nil when none. It makes the verdict compare.DecisionError
	// unless something failed. What of it a run of Current records (a
	// RecordedError, see Recorded) is not reported again.
	RunErr error

	// comparisons replaces compare's functions in a test, to check the
	// guard; nil in use.
	comparisons *comparisons
}

// Judgement is the verdict on a pair of files and what it rests on.
type Judgement struct {
	// Comparison is the comparison the verdict was read from (with the
	// rerun's confirmation when one was given); never nil. Without a
	// baseline it has no rows and holds the failed asserts only.
	Comparison *compare.Comparison
	// Decision is the verdict: pass, fail, inconclusive or error.
	Decision compare.Decision
	// Counts tallies the comparison's verdicts.
	Counts compare.Counts
	// Problems are why not everything was judged: RunErr (but for what
	// runs already record, see RecordedError) and every run or file the
	// comparison could not judge. They make the verdict
	// compare.DecisionError unless something failed anyway.
	Problems []error
	// Notes are what the user must know that does not change the verdict.
	Notes []string
}

// Regressions counts the comparison's rows with verdict regression.
func (j *Judgement) Regressions() int { return j.Counts.ByVerdict[compare.Regression] }

// Inconclusive counts the comparison's rows with verdict inconclusive.
func (j *Judgement) Inconclusive() int { return j.Counts.ByVerdict[compare.Inconclusive] }

// Comparable is the one comparability rule of a baseline: nil when base
// measured what cur measures (compare.CheckComparable: the suite, each
// run's scenario, sweep values, load and workload). When they differ the
// error wraps compare.ErrNotComparable, unless allow says to judge anyway:
// then the error is nil and note says what differs. cur may be what a plan
// will write, so that a gate refuses a baseline before anything runs.
func Comparable(base, cur *results.File, allow bool) (note string, err error) {
	if base == nil {
		return "", nil
	}
	err = compare.CheckComparable(base, cur)
	switch {
	case err == nil:
		return "", nil
	case allow:
		return fmt.Sprintf("comparing with a different baseline on purpose (--allow-different-baseline): %v", err), nil
	}
	return "", fmt.Errorf("%w (pass --allow-different-baseline to compare anyway)", err)
}

// Judge judges in.Current against in.Baseline. The error is not nil, and
// nothing was judged, when the baseline is not comparable (wrapping
// compare.ErrNotComparable, unless in.AllowDifferent) or when an A/B rerun
// lacks its baseline side (ErrRerunBaseline). Everything else, a panic in
// the comparison included, is in the judgement.
func Judge(in Input) (*Judgement, error) {
	j := &Judgement{}
	note, err := Comparable(in.Baseline, in.Current, in.AllowDifferent)
	if err != nil {
		return nil, err
	}
	if note != "" {
		j.Notes = append(j.Notes, note)
	}
	paired := compare.DesignOf(in.Baseline, in.Current) == compare.Paired
	if in.Rerun != nil && paired && in.RerunBaseline == nil {
		return nil, ErrRerunBaseline
	}
	cmp := in.comparisons
	if cmp == nil {
		cmp = &realComparisons
	}
	cfg := in.Config
	c := guarded(in.Current, cfg, func() *compare.Comparison { return cmp.compare(in.Baseline, in.Current, cfg) })
	if in.Baseline != nil && in.Rerun != nil && len(c.RerunRuns()) > 0 {
		if paired {
			c = guarded(in.Current, cfg, func() *compare.Comparison {
				return cmp.confirmAB(in.Baseline, in.Current, in.RerunBaseline, in.Rerun, cfg)
			})
		} else {
			c = guarded(in.Current, cfg, func() *compare.Comparison { return cmp.confirm(in.Baseline, in.Current, in.Rerun, cfg) })
		}
	}
	j.Comparison = c
	j.Decision, j.Problems = decide(c, in.RunErr)
	j.Counts = c.Counts()
	return j, nil
}

// comparisons are the comparisons Judge makes.
type comparisons struct {
	compare   func(base, cur *results.File, cfg compare.Config) *compare.Comparison
	confirm   func(base, cur, rerun *results.File, cfg compare.Config) *compare.Comparison
	confirmAB func(base, cur, rerunBase, rerun *results.File, cfg compare.Config) *compare.Comparison
}

// realComparisons are compare's.
var realComparisons = comparisons{compare: compare.Compare, confirm: compare.Confirm, confirmAB: compare.ConfirmAB}

// guarded runs a comparison that must not take its caller down (a gate
// after the whole run, a report): should it panic, cur's asserts are
// judged alone and the panic becomes a problem, so the verdict is error,
// never a crash.
func guarded(cur *results.File, cfg compare.Config, cmp func() *compare.Comparison) (c *compare.Comparison) {
	defer func() {
		if p := recover(); p != nil {
			c = compare.Compare(nil, cur, cfg)
			c.AddProblem(fmt.Errorf("internal error while comparing with the baseline (please report it): %v", p))
		}
	}()
	return cmp()
}

// decide is the verdict: the comparison's Decide once the run's error,
// when there is one, is added to what was not judged. It returns the
// problems that stood in the way, one per thing not judged.
func decide(c *compare.Comparison, runErr error) (compare.Decision, []error) {
	if err := unrecorded(c.Current, runErr); err != nil {
		c.AddProblem(err)
	}
	var problems []error
	for _, nj := range c.NotJudged {
		if nj.Kind == compare.CurrentPartial && runErr != nil {
			continue // the run's error says why the file was cut short
		}
		if nj.Run != "" {
			problems = append(problems, fmt.Errorf("%s: %s", nj.Run, nj.Reason))
		} else {
			problems = append(problems, errors.New(nj.Reason.Raw()))
		}
	}
	return c.Decide(), problems
}
