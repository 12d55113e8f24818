package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/agext/levenshtein"
	"github.com/llmgate/llmgate/internal/ghaction"
	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/untrusted"
)

// env is what a subcommand may touch of the outside world.
type env struct {
	// stdout and stderr mask every secret the masker knows.
	stdout, stderr io.Writer
	// stdoutTTY and stderrTTY say whether the real outputs are terminals.
	stdoutTTY, stderrTTY bool
	getenv               func(string) string
	// mask holds the secrets known so far; it is the process's masker
	// while the command runs.
	mask *untrusted.Masker
}

// knownSecretEnv are environment variables whose values llmgate masks from
// the start although their names do not say so (INPUT_GITHUB-TOKEN does).
var knownSecretEnv = []string{"HUGGING_FACE_HUB_TOKEN"}

// newEnv wraps the real outputs in a masker that, under GitHub Actions,
// registers each secret with ::add-mask:: on stdout before anything else is
// printed, and knows from the start the value of every variable of environ
// (KEY=VALUE entries) whose name says it is a secret (untrusted.SecretName:
// GITHUB_TOKEN, HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY): a server
// or a log that echoes one never publishes it.
func newEnv(stdout, stderr io.Writer, getenv func(string) string, environ []string) *env {
	m := untrusted.NewMasker()
	if getenv("GITHUB_ACTIONS") == "true" {
		m.OnAdd(func(secret string) { ghaction.AddMask(stdout, secret) })
	}
	for _, k := range knownSecretEnv {
		m.Add(getenv(k))
	}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && untrusted.SecretName(k) {
			m.Add(v)
		}
	}
	return &env{
		stdout: m.Writer(stdout), stderr: m.Writer(stderr),
		stdoutTTY: isTerminal(stdout), stderrTTY: isTerminal(stderr),
		getenv: getenv, mask: m,
	}
}

// addSecrets makes the command mask s's secrets from now on.
func (e *env) addSecrets(s *suite.Suite) {
	if s != nil {
		e.mask.Add(s.Secrets...)
	}
}

// command is one subcommand. Each lives in its own file and registers itself.
type command struct {
	name    string
	summary string // one line for the command list
	usage   string // the synopsis after "llmgate NAME"
	help    string // paragraphs shown by -h, teaching the command
	run     func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// run is llmgate's whole CLI: it dispatches args to a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e := newEnv(stdout, stderr, os.Getenv, os.Environ())
	defer untrusted.Use(e.mask)()
	if len(args) == 0 {
		printUsage(stderr)
		return errReported{exitUsage}
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) == 1 {
			printUsage(stdout)
			return nil
		}
		c, err := lookupCommand(args[1])
		if err != nil {
			return err
		}
		return c.run(ctx, e, []string{"--help"})
	case "--version":
		args[0] = "version"
	}
	c, err := lookupCommand(args[0])
	if err != nil {
		return err
	}
	return e.reported(c.run(ctx, e, args[1:]))
}

// lookupCommand finds the command called name, or says which one was meant.
func lookupCommand(name string) (*command, error) {
	if c, ok := commands[name]; ok {
		return c, nil
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	if near := nearest(name, names); near != "" {
		return nil, usagef("unknown command %q; did you mean %q? (see llmgate help)", name, near)
	}
	return nil, usagef("unknown command %q (see llmgate help)", name)
}

// nearest returns the candidate closest to s in edit distance when it is
// close enough to be a typo of it, else "".
func nearest(s string, candidates []string) string {
	best, bestDist := "", 0
	sort.Strings(candidates)
	for _, c := range candidates {
		d := levenshtein.Distance(s, c, nil)
		if best == "" || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist > 2 || bestDist >= len(best) {
		return ""
	}
	return best
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "llmgate gates pull requests on LLM serving performance.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: llmgate COMMAND [args] [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'llmgate help COMMAND' for a command's flags and examples.")
	fmt.Fprintln(w, "Exit codes: 0 pass, 1 gate failed, 2 bad usage or invalid suite, 3 not judged (a server")
	fmt.Fprintln(w, "did not start or could not be reached, a run was invalid, or the run was interrupted).")
}

// printHelp prints c's usage line, summary and teaching text.
func printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", usageLine(c), c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
}

// flagOwners maps each flag set made by newFlags to its command and
// environment, so parseFlags can report errors and help the command's way.
var flagOwners sync.Map // *flag.FlagSet → flagOwner

type flagOwner struct {
	c *command
	e *env
}

// newFlags makes a flag set for c: --help prints c's help and every flag on
// stdout; a bad flag is a usage error reported by parseFlags.
func newFlags(c *command, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	// The flag package prints errors and the whole help on any mistake;
	// parseFlags prints a shorter message of its own instead.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	flagOwners.Store(fs, flagOwner{c, e})
	return fs
}

// parseFlags parses args, allowing flags after positional arguments. --help
// prints the command's help (exit 0); a bad flag prints the error, the usage
// line and a "did you mean" where one fits (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// undefinedFlag is the start of the flag package's error for an unknown
// flag. It is matched by its words because the flag package returns no
// typed error for it (fmt.Errorf text); it only rewords the message, the
// exit is a usage error either way.
const undefinedFlag = "flag provided but not defined: -"

// flagError reports a Parse error of fs and returns the exit it maps to.
func flagError(fs *flag.FlagSet, err error) error {
	v, ok := flagOwners.Load(fs)
	if !ok {
		if errors.Is(err, flag.ErrHelp) {
			return errReported{exitPass}
		}
		return usageErr(err)
	}
	o := v.(flagOwner)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(o.e.stdout, o.c)
		printFlags(o.e.stdout, fs)
		return errReported{exitPass}
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefinedFlag); ok {
		msg = "unknown flag " + flagName(name)
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near := nearest(name, names); near != "" {
			msg += "; did you mean " + flagName(near) + "?"
		}
	}
	fmt.Fprintf(o.e.stderr, "llmgate %s: %s\n", o.c.name, msg)
	fmt.Fprintf(o.e.stderr, "Usage: %s\n", usageLine(o.c))
	fmt.Fprintf(o.e.stderr, "Run 'llmgate help %s' for every flag and examples.\n", o.c.name)
	return errReported{exitUsage}
}

// flagName writes a flag as the docs do: -o for one letter, --name otherwise.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags lists every flag of fs with its argument, description and default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var rows [][2]string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := flagName(f.Name)
		if arg != "" {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, [2]string{left, usage})
		width = max(width, len(left))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFlags:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r[0], r[1])
	}
}

// flagSet reports whether the flag called name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// usageLine is c's synopsis: "llmgate NAME USAGE".
func usageLine(c *command) string {
	return strings.TrimSpace("llmgate " + c.name + " " + c.usage)
}
