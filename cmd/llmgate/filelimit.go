package main

import (
	"syscall"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
)

// fdHeadroom is what llmgate needs open besides one connection per request
// in flight: its own files, the scraper, the Docker client, the log files.
const fdHeadroom = 64

// checkFileLimit makes sure the process may hold the plan's largest
// concurrency in open connections: it raises the soft RLIMIT_NOFILE up to
// the hard limit when that is needed and allowed, and otherwise refuses the
// plan as bad usage (exit 2) before anything starts, instead of failing the
// run later with "too many open files". raise false only checks.
func checkFileLimit(p *plan.Plan, raise bool) error {
	need, run := uint64(0), ""
	for _, r := range p.Runs() {
		perConn := uint64(1)
		if r.Target != nil && r.Target.Kind == runspec.KindSimulator {
			perConn = 2 // the embedded simulator holds the server's end in this process too
		}
		if n := uint64(r.Load.Concurrency)*perConn + fdHeadroom; n > need {
			need, run = n, r.Name
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || need <= lim.Cur {
		return nil // unknown limit: the run will say
	}
	if need > lim.Max {
		return usagef("run %s needs about %d open files for its connections, but this process may open at most %d (ulimit -n); lower the concurrency or raise the limit",
			run, need, lim.Max)
	}
	if !raise {
		return nil
	}
	was := lim.Cur
	lim.Cur = need
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return usagef("run %s needs about %d open files for its connections; raising the limit from %d failed: %v", run, need, was, err)
	}
	return nil
}
