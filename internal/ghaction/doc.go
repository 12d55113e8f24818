// Package ghaction is llmgate's GitHub integration, the last stage of the
// pipeline: it takes a finished verdict and its rendered markdown and hands
// them to GitHub as step outputs, a step summary, error annotations at the
// suite's file:line, and one sticky pull-request comment per suite. Those
// places come as plain data (runspec.Source, runspec.Diagnostic): it links no
// HCL and no suite.
//
// Everything here is guarded: outside GitHub Actions (GITHUB_ACTIONS is not
// "true") the Actions methods do nothing, and a missing runner file is an
// error to report, never a panic.
package ghaction
