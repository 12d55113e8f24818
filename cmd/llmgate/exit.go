package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/llmgate/llmgate/untrusted"
)

// Exit codes, the same for every subcommand.
const (
	exitPass  = 0 // everything passed
	exitGate  = 1 // the gate failed: an assert or a regression
	exitUsage = 2 // bad usage or an invalid suite
	exitInfra = 3 // not judged: the server did not start, the target is unreachable, a run was invalid (probe, comment: the service could not be reached)
)

// codedError carries the exit code an error maps to.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageErr marks err as bad usage or an invalid suite (exit 2).
func usageErr(err error) error { return &codedError{exitUsage, err} }

// usagef formats a usage error (exit 2).
func usagef(format string, a ...any) error { return usageErr(fmt.Errorf(format, a...)) }

// infraErr marks err as an infrastructure failure (exit 3).
func infraErr(err error) error { return &codedError{exitInfra, err} }

// gateErr marks err as a failed gate (exit 1).
func gateErr(err error) error { return &codedError{exitGate, err} }

// errReported is returned when the command already printed what went wrong
// (diagnostics, a failed gate table) and only the exit code is left to give.
type errReported struct{ code int }

func (e errReported) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exitCode maps err to the process exit code, printing it unless it was
// already reported. This is the only place errors become exit codes.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitPass
	}
	var rep errReported
	if errors.As(err, &rep) {
		return rep.code
	}
	fmt.Fprintf(stderr, "llmgate: %s\n", untrusted.Text(err.Error()))
	return codeOf(err)
}

// codeOf is the exit code err maps to.
func codeOf(err error) int {
	var rep errReported
	if errors.As(err, &rep) {
		return rep.code
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitInfra
}

// reported prints err on e's stderr, which masks every secret the command
// learnt (the process's masker is gone by the time main prints), as text
// from outside (an error may quote a server or a file: untrusted.Text), and
// returns only its exit code.
func (e *env) reported(err error) error {
	if err == nil {
		return nil
	}
	var rep errReported
	if errors.As(err, &rep) {
		return rep
	}
	fmt.Fprintf(e.stderr, "llmgate: %s\n", untrusted.Text(err.Error()))
	return errReported{codeOf(err)}
}
