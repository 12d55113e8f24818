package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run this binary as llmgate itself: with
// LLMGATE_TEST_MAIN=1 it is main, with the arguments after "--".
func TestMain(m *testing.M) {
	if os.Getenv("LLMGATE_TEST_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"llmgate"}, os.Args[i+1:]...)
				break
			}
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// llmgateProcess starts this test binary as `llmgate args...`.
func llmgateProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "LLMGATE_TEST_MAIN=1", "GITHUB_ACTIONS=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// TestValidateFirstSignalEndsIt checks the first SIGINT or SIGTERM ends
// `validate` even while it waits on a suite that never arrives (a FIFO
// nobody writes to), with exit 3.
func TestValidateFirstSignalEndsIt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "suite.hcl")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			cmd := llmgateProcess(t, "validate", fifo)
			// Opening the write end without blocking succeeds once the
			// reader has opened it: validate is then stuck reading.
			deadline := time.Now().Add(30 * time.Second)
			var w *os.File
			for {
				f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
				if err == nil {
					w = f
					break
				}
				if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
					t.Fatalf("validate never opened the suite: %v", err)
				}
				time.Sleep(20 * time.Millisecond) // polling the FIFO, bounded by the deadline
			}
			defer w.Close()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != exitInfra {
					t.Errorf("exit: %v, want code 3", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("validate still running 30 s after %v", sig)
			}
		})
	}
}
