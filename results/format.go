package results

import (
	"math"
	"strconv"
)

// Format writes v in unit u with about three significant figures:
// "52.1ms", "1000/s", "0.950", "64 MiB", a whole count as the whole number
// it is ("16", not "16.0"); "-" when NaN. It is the one formatter of
// quantities: the reports (report.Value), the hints and the suite's
// assert messages use it. A unit it does not know (a results file's)
// adds nothing to the number.
func (u Unit) Format(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	switch u {
	case Milliseconds:
		return FormatNumber(v) + "ms"
	case PerSecond:
		return FormatNumber(v) + "/s"
	case Seconds:
		return FormatNumber(v) + " s"
	case Percent:
		return FormatNumber(v) + "%"
	case MiB, Watts, Joules, JoulesPerToken:
		return FormatNumber(v) + " " + string(u)
	case Count:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
	}
	return FormatNumber(v)
}

// FormatNumber writes v with about three significant figures and no
// decimals from 100 up, so columns stay narrow and comparable.
func FormatNumber(v float64) string {
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

// FormatValue writes the value of name as an assert or a hint saw it: a
// metric's in the metric's unit, another name's (var.ttft_ms) in units'
// unit for it when given (the unit of the metric it was compared with),
// else as a plain number, a whole one without decimals.
func FormatValue(name string, v float64, units map[string]Unit) string {
	if m, ok := LookupMetric(name); ok {
		return m.Unit.Format(v)
	}
	if u, ok := units[name]; ok {
		return u.Format(v)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64) // sweep.concurrency = 16
	}
	return FormatNumber(v)
}
