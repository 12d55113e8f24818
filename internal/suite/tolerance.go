package suite

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// toleranceBlock is `tolerance "ttft.p95" { max_regression = "10%" }`.
type toleranceBlock struct {
	Metric        string         `hcl:"metric,label"`
	MetricRange   hcl.Range      `hcl:"metric,label_range"`
	MaxRegression *hcl.Attribute `hcl:"max_regression"`
	Body          hcl.Body       `hcl:",body"`
	DefRange      hcl.Range      `hcl:",def_range"`
}

// parseTolerance reads a max_regression band for a metric of the given unit:
// "10%" (relative), "+200ms" or "+0.5s" (latency metrics), or "+50" (an
// absolute amount in the metric's own unit). The band says how far the
// metric may get worse, so it can't be negative.
func parseTolerance(s string, unit results.Unit) (relative bool, amount float64, err error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return false, 0, fmt.Errorf("%q is negative; max_regression is how far the metric may get worse before the gate fails, so write it without a minus, like %q (llmgate already knows which direction is worse for each metric)", s, strings.TrimPrefix(t, "-"))
	}
	t = strings.TrimPrefix(t, "+")
	number := func(n string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, fmt.Errorf("%q is not a tolerance; write a percentage like \"10%%\"%s", s, absoluteHint(unit))
		}
		return f, nil
	}
	switch {
	case strings.HasSuffix(t, "%"):
		f, err := number(strings.TrimSuffix(t, "%"))
		return true, f / 100, err
	case strings.HasSuffix(t, "ms"), strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "/s"):
		scale, n := 1.0, strings.TrimSuffix(t, "ms")
		if !strings.HasSuffix(t, "ms") {
			scale, n = 1000, strings.TrimSuffix(t, "s")
		}
		if unit != results.Milliseconds {
			return false, 0, fmt.Errorf("%q is a time, but this metric is measured in %s; use a percentage like \"5%%\"%s", s, unitName(unit), absoluteHint(unit))
		}
		f, err := number(n)
		return false, f * scale, err
	default:
		if unit == results.Milliseconds {
			return false, 0, fmt.Errorf("%q has no unit; write a percentage like \"10%%\" or a time like \"+200ms\" or \"+0.5s\"", s)
		}
		f, err := number(t)
		return false, f, err
	}
}

// unsignedBand explains how an absolute max_regression written without its
// sign ("50ms") was read: as the band "+50ms", how far the metric may get
// worse in its own direction. The sign is how the docs and the reports
// write an absolute band, and without it a reader may take "50ms" for a
// limit or a target.
func unsignedBand(s string, m results.Metric, amount float64) string {
	t := strings.TrimSpace(s)
	worse := "higher"
	if m.Better == results.HigherIsBetter {
		worse = "lower"
	}
	by := plan.FormatNumber(amount)
	if m.Unit == results.Milliseconds {
		by += " ms"
	}
	return fmt.Sprintf("max_regression = %q is read as %q: the gate fails when %s is more than %s %s than the baseline's. Write %q to say so (a percentage such as \"10%%\" needs no sign).",
		s, "+"+t, m.Name, by, worse, "+"+t)
}

func unitName(u results.Unit) string {
	switch u {
	case results.PerSecond:
		return "tokens or requests per second"
	case results.Ratio:
		return "a ratio between 0 and 1"
	case results.Count:
		return "a count"
	}
	return string(u)
}

func absoluteHint(u results.Unit) string {
	if u == results.Milliseconds {
		return " or a time like \"+200ms\""
	}
	example := "+0.05"
	switch u {
	case results.PerSecond:
		example = "+50"
	case results.Count:
		example = "+5"
	}
	return fmt.Sprintf(" or an absolute amount in %s like %q", unitName(u), example)
}
