package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/history"
	"github.com/llmgate/llmgate/internal/report"
	"github.com/llmgate/llmgate/internal/runner"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

func init() {
	register(&command{
		name:    "history",
		summary: "keep main's results, find change points in them, draw the trends",
		usage:   "add|list|check|accept|report [args] [flags]",
		help: `
History keeps every results file of a branch (main, usually) as an entry
of a store, and finds the commits where a metric changed level: the slow
slides and the small steps that no single pull request's gate sees.

  llmgate history add RESULTS... --store DIR     add results files as entries
  llmgate history list --store DIR               list the entries
  llmgate history check --store DIR              find change points; exit 1 on
                                                 a regression not accepted
  llmgate history accept --store DIR ...         accept a change point: who, when, why
  llmgate history report --store DIR -o FILE     the trend page (HTML) and a
                                                 markdown summary

--store is a directory (default perf-history; plain JSON files, never
rewritten, that live on a git branch of their own) or a PostgreSQL URL
(postgres://user@host/db; the tables are created on first use). Both give
the same answers.

An entry keeps, per run, its status and the estimate of every metric with
its interval, and the results file itself, so that any metric can be
tested again from its per-request samples. Invalid, partial and failed runs
are kept and marked, and never used as evidence.

check searches, for each suite, run and gated metric (--suite FILE's gate
block, else compare's default metrics), the newest healthy entries with
E-divisive means and a permutation test, then the newest level for a step
for the worse among its last 3 to 7 entries (the recent-step test, marked
"(recent)"); the two share the significance level (--alpha, default 0.01),
so a history without a change reports none 99 times in 100. It keeps
change points that move the level by at least half the metric's band
(--min-change overrides), and prints each one: the commits either side,
the medians before and after, the change and its significance. A
regression stays failing until 'history accept' records who accepted it
and why.

The gate can judge a pull request against the history instead of one
baseline file: llmgate gate SUITE --baseline history:DIR (or
history:postgres://...) compares with the median of main's newest five
healthy entries, run by run.

Exit codes: check exits 1 while a regression change point is not
accepted, 0 otherwise; every subcommand exits 2 for bad usage or an
unreadable results file, 3 when the store cannot be read or written.

Examples:

  llmgate history add results.json --store perf-history
  llmgate history check --store perf-history --suite perf/gate.hcl
  llmgate history accept --store perf-history --suite quickstart --run chat \
      --metric ttft.p95 --at 4f2a9c1 --reason "longer prompts, on purpose"
  llmgate history report --store perf-history -o trend.html --markdown trend.md`,
		run: runHistory,
	})
}

// historySubcommands are history's verbs.
var historySubcommands = map[string]func(ctx context.Context, e *env, args []string) error{
	"add":    historyAdd,
	"list":   historyList,
	"check":  historyCheck,
	"accept": historyAccept,
	"report": historyReport,
}

func runHistory(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		printHelp(e.stdout, commands["history"])
		return nil
	}
	if len(args) == 0 {
		return usagef("history needs a subcommand: add, list, check, accept or report (see llmgate help history)")
	}
	sub, ok := historySubcommands[args[0]]
	if !ok {
		names := []string{"add", "list", "check", "accept", "report"}
		if near := nearest(args[0], names); near != "" {
			return usagef("unknown history subcommand %q; did you mean %q?", args[0], near)
		}
		return usagef("unknown history subcommand %q: want add, list, check, accept or report", args[0])
	}
	return sub(ctx, e, args[1:])
}

// defaultStore is where a history lives when --store is not given.
const defaultStore = "perf-history"

// storeFlag registers --store.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", defaultStore, "the history: a `DIR`ectory or a postgres:// URL")
}

// openStore opens the store; one that cannot be opened is infrastructure
// (exit 3), except a directory that does not exist when reading, which
// is bad usage (a typo must not read as an empty history).
func openStore(ctx context.Context, spec string, create bool) (history.Store, error) {
	s, err := history.Open(ctx, spec, create)
	if err != nil {
		if !history.IsPostgres(spec) && !create {
			if _, statErr := os.Stat(spec); statErr != nil {
				return nil, usageErr(err)
			}
		}
		return nil, infraErr(err)
	}
	return s, nil
}

func historyAdd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["history"], e)
	store := storeFlag(fs)
	commit := fs.String("commit", "", "record `SHA` as the commit (default: the results' environment.git_sha)")
	ref := fs.String("ref", "", "record `REF` as the git ref (default: the results' environment.git_ref)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("history add needs RESULTS files: llmgate history add results.json --store DIR")
	}
	var entries []*history.Entry
	for _, path := range pos {
		f, err := readResults(path, "the")
		if err != nil {
			return err
		}
		en, err := history.NewEntry(f, history.AddOptions{Commit: *commit, Ref: *ref, Source: path})
		if err != nil {
			return usagef("%s: %w", path, err)
		}
		entries = append(entries, en)
	}
	s, err := openStore(ctx, *store, true)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, en := range entries {
		if err := s.Add(ctx, en); err != nil {
			if errors.Is(err, history.ErrExists) {
				fmt.Fprintf(e.stderr, "llmgate: %s is already in the history as %s; not added again\n", en.Source, en.ID)
				continue
			}
			return infraErr(fmt.Errorf("adding %s to %s: %w", en.Source, s, err))
		}
		var marked []string
		for _, r := range en.Runs {
			if !r.Healthy() {
				marked = append(marked, fmt.Sprintf("%s %s", untrusted.Short(r.Name, 60), r.Status))
			}
		}
		fmt.Fprintf(e.stdout, "added %s to %s (suite %s, commit %s, %d runs)\n", en.ID, s, untrusted.Short(en.Suite, 60), untrusted.Short(en.ShortCommit(), 12), len(en.Runs))
		if len(marked) > 0 {
			fmt.Fprintf(e.stderr, "warning: kept but never used as evidence: %s\n", strings.Join(marked, ", "))
		}
	}
	return nil
}

func historyList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["history"], e)
	store := storeFlag(fs)
	suiteName := fs.String("suite", "", "list the entries of the suite called `NAME` only")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("history list takes no arguments, got %q", pos[0])
	}
	s, err := openStore(ctx, *store, false)
	if err != nil {
		return err
	}
	defer s.Close()
	es, err := s.Entries(ctx, history.Query{Suite: *suiteName})
	if err != nil {
		return infraErr(err)
	}
	return report.HistoryList(e.stdout, es)
}

// checkFlags are the flags check and report share.
type checkFlags struct {
	store, suitePath   string
	vars               *stringList
	alpha              float64
	minChange          string
	last, window, perm int
	markdown           string
}

func (c *checkFlags) register(fs *flag.FlagSet) {
	c.vars = varFlag(fs)
	fs.StringVar(&c.store, "store", defaultStore, "the history: a `DIR`ectory or a postgres:// URL")
	fs.StringVar(&c.suitePath, "suite", "", "search the metrics of the gate block of the suite `FILE` (and only its entries)")
	fs.Float64Var(&c.alpha, "alpha", 0, "significance level, shared by E-divisive and the recent-step test (default 0.01)")
	fs.StringVar(&c.minChange, "min-change", "", "least change of level to report, as `PCT` (\"3%\"; default half each metric's band)")
	fs.IntVar(&c.last, "last", 0, "only change points among the newest `N` healthy entries")
	fs.IntVar(&c.window, "window", 0, "search the newest `N` healthy entries of each series (default 100)")
	fs.IntVar(&c.perm, "permutations", 0, "permutations a test draws at least (default 199; more when its level needs them)")
	fs.StringVar(&c.markdown, "markdown", "", "also write the markdown summary of the newest change points to `FILE`")
}

// run reads the store and checks it.
func (c *checkFlags) run(ctx context.Context, e *env) (*history.Result, []*history.Entry, history.Store, error) {
	vars, err := suiteVars(*c.vars)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(vars) > 0 && c.suitePath == "" {
		return nil, nil, nil, usagef("--var sets variables of the suite; pass --suite FILE too")
	}
	if c.alpha < 0 || c.alpha >= 1 || c.last < 0 || c.window < 0 || c.perm < 0 {
		return nil, nil, nil, usagef("--alpha must be in (0, 1) and --last, --window, --permutations positive")
	}
	o := history.CheckOptions{Alpha: c.alpha, Last: c.last, Window: c.window, Permutations: c.perm, Tolerances: compare.DefaultConfig().Tolerances}
	if c.minChange != "" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(c.minChange), "%"), 64)
		if err != nil || v <= 0 || !strings.HasSuffix(c.minChange, "%") {
			return nil, nil, nil, usagef("--min-change %q: want a percentage such as 3%%", c.minChange)
		}
		o.MinChange = v / 100
	}
	var q history.Query
	if c.suitePath != "" {
		s, diags, err := loadSuite(e, c.suitePath, vars)
		if err != nil {
			return nil, nil, nil, err
		}
		if diags.HasErrors() {
			return nil, nil, nil, errReported{exitUsage}
		}
		o.Tolerances = s.Gate.CompareConfig().Tolerances
		q.Suite = s.Name
	}
	if c.markdown != "" {
		if err := checkOutputs([]output{{"--markdown", c.markdown}}, c.suitePath); err != nil {
			return nil, nil, nil, err
		}
	}
	st, err := openStore(ctx, c.store, false)
	if err != nil {
		return nil, nil, nil, err
	}
	es, err := st.Entries(ctx, q)
	if err != nil {
		st.Close()
		return nil, nil, nil, infraErr(err)
	}
	accepted, err := st.Acceptances(ctx)
	if err != nil {
		st.Close()
		return nil, nil, nil, infraErr(err)
	}
	return history.Check(es, accepted, o), es, st, nil
}

// writeMarkdown writes the markdown summary when --markdown asks for it.
func (c *checkFlags) writeMarkdown(e *env, r *history.Result, o report.HistoryOptions) error {
	if c.markdown == "" {
		return nil
	}
	if err := writeFileAtomic(c.markdown, []byte(report.HistoryMarkdown(r, o))); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Markdown summary written to %s\n", c.markdown)
	return nil
}

func historyCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["history"], e)
	var c checkFlags
	c.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("history check takes no arguments, got %q", pos[0])
	}
	r, es, st, err := c.run(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	o := report.HistoryOptions{Store: st.String(), Entries: len(es)}
	if err := report.HistoryCheck(e.stdout, r, o); err != nil {
		return err
	}
	if err := c.writeMarkdown(e, r, o); err != nil {
		return err
	}
	if len(r.Unaccepted()) > 0 {
		return errReported{exitGate}
	}
	return nil
}

func historyReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["history"], e)
	var c checkFlags
	c.register(fs)
	out := fs.String("o", "trend.html", "write the HTML trend report to `FILE`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("history report takes no arguments, got %q", pos[0])
	}
	if err := checkOutputs([]output{{"-o", *out}, {"--markdown", c.markdown}}, c.suitePath); err != nil {
		return err
	}
	r, es, st, err := c.run(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	o := report.HistoryOptions{Store: st.String(), Entries: len(es)}
	var page strings.Builder
	if err := report.HistoryHTML(&page, r, o); err != nil {
		return err
	}
	if err := writeFileAtomic(*out, []byte(page.String())); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Trend report written to %s (%s)\n", *out, report.HistoryHeadline(r))
	return c.writeMarkdown(e, r, o)
}

func historyAccept(ctx context.Context, e *env, args []string) error {
	fs := newFlags(commands["history"], e)
	store := storeFlag(fs)
	suiteArg := fs.String("suite", "", "the suite, by `NAME` or suite file (required)")
	run := fs.String("run", "", "the run's `NAME` (required)")
	metric := fs.String("metric", "", "the metric's `NAME`, e.g. ttft.p95 (required)")
	at := fs.String("at", "", "the first entry of the new level: its `COMMIT` (a prefix) or entry ID (required)")
	reason := fs.String("reason", "", "why the change is accepted, in `TEXT` (required)")
	by := fs.String("by", "", "who accepts it, by `NAME` (default: GITHUB_ACTOR, else USER)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("history accept takes no arguments, got %q", pos[0])
	}
	if *suiteArg == "" || *run == "" || *metric == "" || *at == "" || strings.TrimSpace(*reason) == "" {
		return usagef("history accept needs --suite, --run, --metric, --at and --reason (see llmgate help history)")
	}
	if _, ok := results.LookupMetric(*metric); !ok {
		return usagef("--metric %q is not a metric llmgate knows", *metric)
	}
	suiteName := *suiteArg
	if strings.HasSuffix(suiteName, ".hcl") {
		s, diags, err := loadSuite(e, suiteName, nil)
		if err != nil {
			return err
		}
		if diags.HasErrors() {
			return errReported{exitUsage}
		}
		suiteName = s.Name
	}
	who := *by
	for _, k := range []string{"GITHUB_ACTOR", "USER"} {
		if who == "" {
			who = e.getenv(k)
		}
	}
	if who == "" {
		return usagef("say who accepts the change: --by NAME")
	}
	st, err := openStore(ctx, *store, false)
	if err != nil {
		return err
	}
	defer st.Close()
	es, err := st.Entries(ctx, history.Query{Suite: suiteName})
	if err != nil {
		return infraErr(err)
	}
	entry, err := findEntry(es, *run, *at)
	if err != nil {
		return err
	}
	a, err := history.NewAcceptance(suiteName, *run, *metric, entry, who, *reason, time.Now())
	if err != nil {
		return usageErr(err)
	}
	if err := st.Accept(ctx, a); err != nil {
		return infraErr(err)
	}
	fmt.Fprintf(e.stdout, "accepted %s %s of suite %s from %s (%s), by %s: %s\n", untrusted.Short(*run, 60), *metric, untrusted.Short(suiteName, 60),
		untrusted.Short(entry.ShortCommit(), 12), entry.ID, untrusted.Short(who, 60), untrusted.Short(*reason, 200))
	return nil
}

// findEntry is the one entry with the run whose ID is at, or whose commit
// starts with at.
func findEntry(es []*history.Entry, run, at string) (*history.Entry, error) {
	var found []*history.Entry
	for _, en := range es {
		if en.Run(run) == nil {
			continue
		}
		if en.ID == at || (len(at) >= 4 && strings.HasPrefix(en.Commit, at)) {
			found = append(found, en)
		}
	}
	switch len(found) {
	case 0:
		return nil, usagef("no entry of run %s has the id or commit %q (llmgate history list shows them)", untrusted.Short(run, 60), at)
	case 1:
		return found[0], nil
	}
	return nil, usagef("%d entries of run %s match %q; give the entry ID (llmgate history list shows them)", len(found), untrusted.Short(run, 60), at)
}

// historyBaseline resolves a --baseline history:STORE into the rolling
// baseline for s: the median of the newest healthy entries of the pull
// request's base branch (GITHUB_BASE_REF) or, outside a pull request, of
// any ref. It returns nil with a note when the history holds no healthy
// entry of the suite yet.
func historyBaseline(ctx context.Context, e *env, s *suite.Suite, spec string) (*results.File, string, error) {
	where := strings.TrimPrefix(spec, historyPrefix)
	if where == "" {
		return nil, "", usagef("--baseline history: needs a store: history:DIR or history:postgres://...")
	}
	st, err := openStore(ctx, where, false)
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	es, err := st.Entries(ctx, history.Query{Suite: s.Name, WithResults: true})
	if err != nil {
		return nil, "", infraErr(err)
	}
	ref := ""
	if base := e.getenv("GITHUB_BASE_REF"); base != "" {
		ref = "refs/heads/" + base
	}
	var metrics []string
	for _, t := range s.Gate.CompareConfig().Tolerances {
		metrics = append(metrics, t.Metric)
	}
	f, choices, err := history.Baseline(es, history.BaselineOptions{Suite: s.Name, Ref: ref, Metrics: metrics, Source: historyPrefix + st.String()})
	if err != nil {
		return nil, "", infraErr(err)
	}
	of := ""
	if ref != "" {
		of = " on " + ref
	}
	if f == nil {
		return nil, fmt.Sprintf("no baseline: %s holds no healthy entry of suite %s%s yet, so no regression is checked and only the asserts are judged", st, untrusted.Short(s.Name, 60), of), nil
	}
	var parts []string
	for _, c := range choices {
		parts = append(parts, fmt.Sprintf("%s from %s (median of %d)", untrusted.Short(c.Run, 60), untrusted.Short(c.Chosen.ShortCommit(), 12), len(c.Among)))
	}
	return f, fmt.Sprintf("rolling baseline from %s%s: %s", st, of, strings.Join(parts, ", ")), nil
}

// historyPrefix marks a --baseline that names a history store.
const historyPrefix = "history:"

// withHistoryBaseline resolves a baseline that names a history store
// (--baseline history:STORE, or the gate block's baseline = "history:DIR",
// relative to the suite file) into the rolling baseline the gate compares
// with; any other baseline is left as it is.
func withHistoryBaseline(ctx context.Context, e *env, s *suite.Suite, gopts *runner.GateOptions) error {
	spec := gopts.Baseline
	if spec == "" && s.Gate != nil && strings.HasPrefix(s.Gate.Baseline, historyPrefix) {
		where := strings.TrimPrefix(s.Gate.Baseline, historyPrefix)
		if !history.IsPostgres(where) && !filepath.IsAbs(where) {
			where = filepath.Join(filepath.Dir(s.Filename), where)
		}
		spec = historyPrefix + where
	}
	if !strings.HasPrefix(spec, historyPrefix) {
		return nil
	}
	f, note, err := historyBaseline(ctx, e, s, spec)
	if err != nil {
		return err
	}
	gopts.Baseline, gopts.BaselineFile, gopts.BaselineNote = spec, f, note
	if f == nil {
		gopts.Baseline = runner.BaselineNone
	}
	return nil
}
