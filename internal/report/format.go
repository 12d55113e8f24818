package report

import "github.com/llmgate/llmgate/results"

// fmtMs formats a latency in milliseconds with precision that suits its size.
func fmtMs(v float64) string { return results.Milliseconds.Format(v) }

// fmtNum formats v with about three significant figures and no decimals
// from 100 up, so columns stay narrow and comparable.
func fmtNum(v float64) string { return results.FormatNumber(v) }
