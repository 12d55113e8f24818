package report

import (
	"math"
	"strconv"
)

// fmtMs formats a latency in milliseconds with precision that suits its size.
func fmtMs(v float64) string {
	return fmtNum(v) + "ms"
}

// fmtNum formats v with about three significant figures and no decimals
// from 100 up, so columns stay narrow and comparable.
func fmtNum(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "NaN"
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}
