package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// env is what a subcommand may touch of the outside world.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
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
	e := &env{stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				printHelp(stdout, c)
				return nil
			}
		}
		printUsage(stdout)
		if len(args) == 0 {
			return errReported{exitUsage}
		}
		return nil
	}
	if args[0] == "version" || args[0] == "--version" {
		fmt.Fprintln(stdout, "llmgate", version())
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		return usagef("unknown command %q (see llmgate help)", args[0])
	}
	return c.run(ctx, e, args[1:])
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "llmgate gates pull requests on LLM serving performance.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: llmgate COMMAND [flags] [args]")
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
	fmt.Fprintln(w, "Exit codes: 0 pass, 1 gate failed, 2 bad usage or invalid suite, 3 infrastructure.")
}

func printHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: llmgate %s %s\n\n%s\n", c.name, c.usage, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.help))
	}
}

// newFlags makes a flag set for c whose -h prints c's help and whose errors are usage errors.
func newFlags(c *command, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		printHelp(e.stderr, c)
		fmt.Fprintln(e.stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, and
// maps -h to a clean exit and bad flags to exit 2.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, errReported{exitPass}
			}
			return nil, errReported{exitUsage}
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
