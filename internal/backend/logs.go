package backend

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
	"syscall"
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
	f, err := openLogFile(path)
	if err != nil {
		return nil, fmt.Errorf("container log file: %w", err)
	}
	return &logFollower{cli: cli, path: path, f: f}, nil
}

// openLogFile creates or empties the log file at path. What the container
// prints lands in it, so it must be a file of its own: a symlink (which a
// pull request could plant at ctr.vllm.log, pointing at any file the runner
// may write), a file with other hard links, a FIFO, a device or a
// directory is refused, never written through.
func openLogFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%s is a symlink; llmgate writes a container's log to a file of its own, never through a link", path)
	case errors.Is(err, syscall.ENXIO): // a FIFO no one reads
		return nil, fmt.Errorf("%s is not a regular file (a FIFO); llmgate will not write a container's log into it", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file (%s); llmgate will not write a container's log into it", path, fi.Mode().Type())
	case links(fi) > 1:
		err = fmt.Errorf("%s has %d hard links; llmgate writes a container's log to a file of its own", path, links(fi))
	default:
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// links is a file's hard-link count (1 where the system does not say).
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
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
