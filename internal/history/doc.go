// Package history keeps every results file a branch's runs produce as an
// entry of a store (a directory of plain files, or PostgreSQL), finds the
// change points of each run's gated metrics over those entries (package
// changepoint), records which were accepted, and picks a rolling baseline
// for the gate from the newest healthy entries. Invalid, partial and
// failed runs are kept and marked, never used as evidence. It sits after
// results, compare and changepoint and before report; it never formats.
package history
