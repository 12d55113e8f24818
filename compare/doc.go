// Package compare is the gate's judgement: it sets a current results file
// against a baseline, run by run and metric by metric, with tolerance bands,
// Mann-Whitney U tests over per-request samples and a confirm-by-rerun rule,
// and returns verdicts as data. It sits after results and before report; it
// never formats anything.
package compare
