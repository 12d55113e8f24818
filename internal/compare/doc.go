// Package compare is the gate's judgement: it sets a current results file
// against a baseline, run by run and metric by metric, with tolerance bands,
// evidence about each quantile (Harrell-Davis estimates with Maritz-Jarrett
// intervals), Mann-Whitney U tests of whole distributions and a
// confirm-by-rerun rule, and decides the gate (Comparison.Decide) with what
// it could not judge. Verdicts are data; it sits after results and before
// report, and never formats anything. It takes its configuration as plain
// data (Config; suite builds the gate's) and links no HCL and no suite.
package compare
