package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReport checks the lines say, for each group, whether it runs, and
// when it does not, why, what makes it run, and that under CI=true it fails.
func TestReport(t *testing.T) {
	tests := []struct {
		name     string
		docker   error
		chromium string
		ci       bool
		want     string
	}{
		{name: "all there", chromium: "/usr/bin/chromium", want: "make test: container tests (internal/backend/) run: a Docker daemon answers\n" +
			"make test: the HTML report's browser test runs with /usr/bin/chromium\n"},
		{name: "nothing", docker: errors.New("dial unix /var/run/docker.sock: connect: no such file or directory"),
			want: "make test: container tests (internal/backend/) skip: no Docker daemon answers (dial unix /var/run/docker.sock: connect: no such file or directory); start Docker or set DOCKER_HOST to run them\n" +
				"make test: the HTML report's browser test skips: no chromium (apt-get install -y chromium)\n"},
		{name: "CI", docker: errors.New("refused"), ci: true,
			want: "make test: container tests (internal/backend/) fail (CI=true requires them): no Docker daemon answers (refused); start Docker or set DOCKER_HOST to run them\n" +
				"make test: the HTML report's browser test fails (CI=true requires it): no chromium (apt-get install -y chromium)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			report(&b, tt.docker, tt.chromium, tt.ci)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMakeTestRunsTheProbe checks `make test` prints the probe's lines
// before the tests, so that a skip is seen without -v.
func TestMakeTestRunsTheProbe(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(mk)
	i := strings.Index(s, "\ntest:")
	if i < 0 {
		t.Fatal("the Makefile has no test target")
	}
	recipe := s[i:]
	probe, tests := strings.Index(recipe, "run ./internal/testprobe"), strings.Index(recipe, "$(GO) test")
	if probe < 0 || tests < 0 || probe > tests {
		t.Errorf("make test does not run ./internal/testprobe before the tests:\n%s", recipe)
	}
}
