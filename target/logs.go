package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmgate/llmgate/untrusted"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// logsClient is the part of the Docker client that reads container logs.
type logsClient interface {
	ContainerLogs(ctx context.Context, id string, options client.ContainerLogsOptions) (client.ContainerLogsResult, error)
}

// logFollower streams a container's stdout and stderr, from its first line,
// into a file while it runs. The stream ends by itself when the container
// stops, so after Stop the file holds the whole log.
type logFollower struct {
	cli  logsClient
	path string
	f    *os.File

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

func newLogFollower(cli logsClient, path string) (*logFollower, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("container log file: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("container log file: %w", err)
	}
	return &logFollower{cli: cli, path: path, f: f}, nil
}

// follow starts streaming the logs of container id; only the first call counts.
func (l *logFollower) follow(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	go func() {
		defer close(l.done)
		rc, err := l.cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
		if err != nil {
			l.err = fmt.Errorf("follow container logs: %w", err)
			return
		}
		defer rc.Close()
		// The log file is published as a CI artifact: secrets masked.
		w := untrusted.Current().Writer(l.f)
		if _, err := stdcopy.StdCopy(w, w, rc); err != nil && ctx.Err() == nil {
			l.err = fmt.Errorf("copy container logs to %s: %w", l.path, err)
		}
	}()
}

// close waits for the stream to end (the container has stopped), or gives up
// when ctx ends or after a few seconds, then closes the file.
func (l *logFollower) close(ctx context.Context) error {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
		cancel()
		<-done
	}
	return errors.Join(l.err, l.f.Close())
}

// tailLogs returns the last n lines of a container's combined output.
func tailLogs(ctx context.Context, cli logsClient, id string, n int) ([]string, error) {
	rc, err := cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(n)})
	if err != nil {
		return nil, fmt.Errorf("read container logs: %w", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, &buf, rc); err != nil {
		return nil, fmt.Errorf("read container logs: %w", err)
	}
	return lastLines(buf.String(), n), nil
}

// lastLines splits s into lines (dropping a final empty one and carriage
// returns) and keeps the last n, each made safe to print and publish
// (untrusted.Line): the log is the container's, not llmgate's.
func lastLines(s string, n int) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r")
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = untrusted.Line(l)
	}
	return lines
}
