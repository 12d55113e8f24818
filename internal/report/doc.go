// Package report renders what the pipeline measured and what compare decided:
// a terminal table, markdown for a GitHub step summary or PR comment, and a
// self-contained HTML page with SVG charts. It formats; it never decides pass/fail.
// It renders plain data (a suite's problems as runspec.Diagnostic) and links
// no HCL and no suite.
package report
