// Command testprobe prints, before `make test` runs the tests, one line for
// each group of tests that needs something the machine may lack and skips
// without it: the container tests (a Docker daemon) and the HTML report's
// browser test (chromium). go test shows a skipped test's message only with
// -v, so without this line a skip would pass unseen.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

func main() {
	tclog.SetDefault(tclog.NewNoopLogger()) // no Docker banner
	report(os.Stdout, pingDocker(), findChromium(), os.Getenv("CI") == "true")
}

// pingDocker asks the daemon the container tests would use (testcontainers'
// own lookup, as target's requireDocker does) whether it answers.
func pingDocker() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// findChromium is the browser the report's browser test would use, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// report writes one line per group of tests: whether it runs, and when it
// skips, why and what makes it run.
func report(w io.Writer, docker error, chromium string, ci bool) {
	skip, skips := "skip", "skips"
	if ci {
		skip, skips = "fail (CI=true requires them)", "fails (CI=true requires it)"
	}
	if docker != nil {
		fmt.Fprintf(w, "make test: container tests (internal/backend/) %s: no Docker daemon answers (%v); start Docker or set DOCKER_HOST to run them\n", skip, docker)
	} else {
		fmt.Fprintln(w, "make test: container tests (internal/backend/) run: a Docker daemon answers")
	}
	if chromium == "" {
		fmt.Fprintf(w, "make test: the HTML report's browser test %s: no chromium (apt-get install -y chromium)\n", skips)
	} else {
		fmt.Fprintf(w, "make test: the HTML report's browser test runs with %s\n", chromium)
	}
}
