package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// buildVersion is set with -ldflags "-X main.buildVersion=v1.2.3" for releases.
var buildVersion = ""

func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func init() {
	register(&command{
		name:    "version",
		summary: "print llmgate's version",
		usage:   "",
		help: `Version prints the version of this llmgate binary: a release tag, the module
version 'go install' recorded, or "dev" for a build from a checkout.`,
		run: runVersion,
	})
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags(commands["version"], e)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version takes no arguments")
	}
	fmt.Fprintln(e.stdout, "llmgate", version())
	return nil
}
