// Command llmgate gates pull requests on LLM serving performance.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/llmgate/llmgate/internal/backend"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, cancel)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(exitCode(err, os.Stderr))
}

// exitOnInterrupt is set by commands that start nothing and write nothing
// (validate): the first signal ends the process at once, even while it
// waits on a file (a FIFO) that may never come.
var exitOnInterrupt atomic.Bool

// onSignals cancels the command on the first signal, so servers are stopped
// and results written. A second one (GitHub Actions sends SIGTERM 7.5 s after
// SIGINT on a cancelled job) force-removes this process's containers and exits.
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc) {
	<-sigs
	cancel()
	if exitOnInterrupt.Load() {
		fmt.Fprintln(os.Stderr, "llmgate: interrupted")
		os.Exit(exitInfra)
	}
	<-sigs
	fmt.Fprintln(os.Stderr, "llmgate: second signal: removing containers and exiting")
	if backend.ProcessSessionUsed() {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		if err := backend.Cleanup(ctx, backend.ProcessSession()); err != nil {
			fmt.Fprintf(os.Stderr, "llmgate: %v\n", err)
		}
		done()
	}
	os.Exit(exitInfra)
}
