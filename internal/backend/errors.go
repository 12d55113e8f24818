package backend

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnavailable is wrapped by every error that means the server under test
// did not start or cannot be reached: a container that exited or never became
// ready, a Docker daemon that is down, an endpoint that does not answer.
// Callers map it to exit code 3 with errors.Is.
var ErrUnavailable = errors.New("server under test unavailable")

// ErrNoGPURuntime is wrapped (together with ErrUnavailable) when GPUs are
// requested but the Docker daemon cannot give them to a container (no
// NVIDIA Container Toolkit).
var ErrNoGPURuntime = errors.New("docker daemon cannot give containers NVIDIA GPUs")

// StartError explains why a container did not become ready: it exited (bad
// flag, out of memory), or it was still starting when the startup timeout ran
// out. It wraps ErrUnavailable and the underlying cause.
type StartError struct {
	// Image is the container image.
	Image string
	// Exited is true when the container process ended before it was ready.
	Exited bool
	// ExitCode is the process's exit code when Exited.
	ExitCode int
	// OOMKilled is true when the kernel killed the container for memory.
	OOMKilled bool
	// LogTail holds the last lines of the container's output (at most 50).
	LogTail []string
	// Err is the underlying cause (wait strategy error, timeout).
	Err error
}

// Error renders the cause, the exit status and the log tail on several lines.
func (e *StartError) Error() string {
	var b strings.Builder
	switch {
	case e.OOMKilled:
		fmt.Fprintf(&b, "container %s was killed for running out of memory (exit code %d) before it was ready", e.Image, e.ExitCode)
	case e.Exited:
		fmt.Fprintf(&b, "container %s exited with code %d before it was ready", e.Image, e.ExitCode)
	default:
		fmt.Fprintf(&b, "container %s did not become ready", e.Image)
	}
	if e.Err != nil && !e.Exited {
		// When it exited, the exit code and the log tail say more than the
		// wait strategy's own error (still available through Unwrap).
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if len(e.LogTail) > 0 {
		fmt.Fprintf(&b, "\nlast %d log lines:", len(e.LogTail))
		for _, l := range e.LogTail {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// Unwrap returns ErrUnavailable and the underlying cause.
func (e *StartError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrUnavailable}
	}
	return []error{ErrUnavailable, e.Err}
}

// unavailableError marks err as the server being unavailable without
// changing its text.
type unavailableError struct{ err error }

func (e unavailableError) Error() string   { return e.err.Error() }
func (e unavailableError) Unwrap() []error { return []error{e.err, ErrUnavailable} }

// unavailable wraps err so that errors.Is(err, ErrUnavailable) holds.
func unavailable(err error) error { return unavailableError{err} }

// Unavailable marks err as the server under test being unavailable, so
// that errors.Is(err, ErrUnavailable) holds, without changing its text. An
// err that is already marked is returned as it is.
func Unavailable(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	return unavailable(err)
}
