package backend

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestStartErrorMessage(t *testing.T) {
	cause := errors.New("container exited with code 1")
	tests := []struct {
		name string
		err  *StartError
		want []string
	}{
		// A bad flag: exit code and the log lines that explain it, not the wait strategy's echo.
		{name: "exited", err: &StartError{Image: "vllm/vllm-openai:v0.11.0", Exited: true, ExitCode: 1, LogTail: []string{"ValueError: bad"}, Err: cause},
			want: []string{"container vllm/vllm-openai:v0.11.0 exited with code 1 before it was ready", "last 1 log lines:\n  ValueError: bad"}},
		// The kernel's OOM killer.
		{name: "oom", err: &StartError{Image: "i", Exited: true, ExitCode: 137, OOMKilled: true},
			want: []string{"killed for running out of memory (exit code 137)"}},
		// Still starting when the timeout ran out.
		{name: "timeout", err: &StartError{Image: "i", Err: context.DeadlineExceeded},
			want: []string{"container i did not become ready: context deadline exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if !errors.Is(tt.err, ErrUnavailable) {
				t.Errorf("StartError does not wrap ErrUnavailable")
			}
			if tt.err.Err != nil && !errors.Is(tt.err, tt.err.Err) {
				t.Errorf("StartError does not wrap its cause")
			}
		})
	}
	if msg := (&StartError{Image: "i", Exited: true, ExitCode: 1, Err: cause}).Error(); strings.Count(msg, "exited with code 1") != 1 {
		t.Errorf("exit code repeated: %q", msg)
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want []string
	}{
		// Nothing logged.
		{name: "empty", in: "", n: 3, want: nil},
		// Fewer lines than asked: all of them, without the final newline's empty line.
		{name: "few", in: "a\nb\n", n: 3, want: []string{"a", "b"}},
		// More lines than asked: the last n; carriage returns dropped.
		{name: "many", in: "a\r\nb\r\nc\r\nd\n", n: 2, want: []string{"c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lastLines(tt.in, tt.n)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("lastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestMetadataHelpers(t *testing.T) {
	gpus := []struct {
		name, in, want string
	}{
		// No nvidia-smi output.
		{name: "none", in: "", want: ""},
		// One GPU.
		{name: "one", in: "NVIDIA H100 80GB HBM3\n", want: "NVIDIA H100 80GB HBM3"},
		// Several identical GPUs are counted.
		{name: "same", in: "NVIDIA H100 80GB HBM3\nNVIDIA H100 80GB HBM3\n", want: "2x NVIDIA H100 80GB HBM3"},
		// Mixed GPUs are listed.
		{name: "mixed", in: "NVIDIA A100-SXM4-80GB\nNVIDIA L4\n", want: "NVIDIA A100-SXM4-80GB, NVIDIA L4"},
	}
	for _, tt := range gpus {
		if got := summarizeGPUs(tt.in); got != tt.want {
			t.Errorf("%s: summarizeGPUs(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
	if got := digestOf([]string{"vllm/vllm-openai@sha256:abc"}, "sha256:id"); got != "sha256:abc" {
		t.Errorf("digestOf with a repo digest = %q, want sha256:abc", got)
	}
	if got := digestOf(nil, "sha256:id"); got != "sha256:id" {
		t.Errorf("digestOf of a local build = %q, want the image id", got)
	}
}

func TestUnavailable(t *testing.T) {
	cause := errors.New("dial tcp 127.0.0.1:8000: connection refused")
	marked := Unavailable(cause)
	if !errors.Is(marked, ErrUnavailable) || !errors.Is(marked, cause) {
		t.Errorf("Unavailable(%v) = %v: want it to wrap both ErrUnavailable and the cause", cause, marked)
	}
	if marked.Error() != cause.Error() {
		t.Errorf("Unavailable changed the text: %q, want %q", marked.Error(), cause.Error())
	}
	if again := Unavailable(marked); again != marked {
		t.Errorf("Unavailable wrapped an already marked error again: %#v", again)
	}
	if Unavailable(nil) != nil {
		t.Error("Unavailable(nil) is not nil")
	}
}
