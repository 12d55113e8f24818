package suite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
)

// A number in a suite carries no unit: latencies and goodput limits are
// milliseconds, throughputs per second, rates and error rates ratios. A
// unit written after one ("500ms", "1%", "100 tok/s") is a syntax error
// unquoted and a string quoted, and HCL's words for either ("Missing
// newline after argument", "a number is required") do not say so. This
// file recognises the unit and says what to write instead.

// numberUnit is a unit someone may write after a number.
type numberUnit struct {
	// spelled are the ways of writing it, in lower case.
	spelled []string
	// unit is the kind of quantity: Milliseconds for a time, PerSecond,
	// Ratio for a percentage.
	unit results.Unit
	// scale converts a number in this unit into unit's: 1000 for seconds
	// into milliseconds, 0.01 for a percentage into a ratio.
	scale float64
}

var numberUnits = []numberUnit{
	{spelled: []string{"ns"}, unit: results.Milliseconds, scale: 1e-6},
	{spelled: []string{"us", "µs", "μs"}, unit: results.Milliseconds, scale: 1e-3},
	{spelled: []string{"ms", "msec", "millis"}, unit: results.Milliseconds, scale: 1},
	{spelled: []string{"s", "sec", "secs", "seconds"}, unit: results.Milliseconds, scale: 1000},
	{spelled: []string{"min", "m"}, unit: results.Milliseconds, scale: 60_000},
	{spelled: []string{"h"}, unit: results.Milliseconds, scale: 3_600_000},
	{spelled: []string{"%"}, unit: results.Ratio, scale: 0.01},
	{spelled: []string{"tok/s", "tokens/s", "req/s", "requests/s", "rps", "tps", "/s"}, unit: results.PerSecond, scale: 1},
}

// numberWithUnitRE finds a number followed by a unit-like word: the word
// is checked against numberUnits by lookupNumberUnit.
var numberWithUnitRE = regexp.MustCompile(`(\d+(?:\.\d+)?|\.\d+)[ \t]*(%|/s|[A-Za-zµμ]+(?:/s)?)`)

// numberWithUnit is a number written with a unit.
type numberWithUnit struct {
	text   string // as written, "500ms"
	number float64
	unit   numberUnit
}

func lookupNumberUnit(word string) (numberUnit, bool) {
	w := strings.ToLower(word)
	for _, u := range numberUnits {
		for _, s := range u.spelled {
			if w == s {
				return u, true
			}
		}
	}
	return numberUnit{}, false
}

// parseNumberWithUnit reads s, all of it, as a number with a unit ("500ms",
// " 0.5 s", "1%"); ok is false for anything else, a plain number included.
func parseNumberWithUnit(s string) (numberWithUnit, bool) {
	t := strings.TrimSpace(s)
	m := numberWithUnitRE.FindStringSubmatchIndex(t)
	if m == nil || m[0] != 0 || m[1] != len(t) {
		return numberWithUnit{}, false
	}
	return numberWithUnitAt(t, m)
}

func numberWithUnitAt(s string, m []int) (numberWithUnit, bool) {
	u, ok := lookupNumberUnit(s[m[4]:m[5]])
	if !ok {
		return numberWithUnit{}, false
	}
	f, err := strconv.ParseFloat(s[m[2]:m[3]], 64)
	if err != nil {
		return numberWithUnit{}, false
	}
	return numberWithUnit{text: s[m[0]:m[1]], number: f, unit: u}, true
}

// inUnit is n in unit: 0.5 s is 500 in milliseconds, 1% is 0.01 as a
// ratio; ok is false when n is no quantity of that kind.
func (n numberWithUnit) inUnit(unit results.Unit) (float64, bool) {
	if n.unit.unit != unit {
		return 0, false
	}
	return n.number * n.unit.scale, true
}

// unitWords says what a number of unit is, for "ttft.p95 is ...".
func unitWords(u results.Unit) string {
	switch u {
	case results.Milliseconds:
		return "in milliseconds"
	case results.PerSecond:
		return "per second"
	case results.Ratio:
		return "a ratio"
	case results.Count:
		return "a count"
	}
	return string(u)
}

// numberWithUnitAdvice says that numbers take no unit and what to write
// instead of n: what names the quantity ("ttft.p95", "goodput ttft"), and
// unit is its unit (known false: it is not known, and n's own kind is
// assumed).
func numberWithUnitAdvice(n numberWithUnit, what string, unit results.Unit, known bool) string {
	if !known {
		unit = n.unit.unit
		what = ""
	}
	v, ok := n.inUnit(unit)
	if !ok {
		return fmt.Sprintf("%s is a number with a unit, and %s is %s, which %q is not. Numbers in a suite are written without a unit.", n.text, what, unitWords(unit), n.text)
	}
	write := plan.FormatNumber(roundDigits(v))
	if n.unit.scale != 1 {
		write += fmt.Sprintf(" (%s %s)", n.text, sameAs(unit))
	}
	if what == "" {
		return fmt.Sprintf("%s is a number with a unit; numbers in a suite are written without one: latencies and goodput limits in milliseconds, throughputs per second, error rates and fractions as ratios (1%% is 0.01), counts as they are. As a %s, it is written %s.", n.text, kindWords(unit), write)
	}
	return fmt.Sprintf("%s is a number with a unit; %s is %s and is written without one: write %s.", n.text, what, unitWords(unit), write)
}

// kindWords names the kind of quantity of unit, for "as a latency".
func kindWords(u results.Unit) string {
	switch u {
	case results.Milliseconds:
		return "latency"
	case results.PerSecond:
		return "rate"
	}
	return "ratio"
}

// sameAs names the unit a converted number is in, for "(0.5s in milliseconds)".
func sameAs(u results.Unit) string {
	switch u {
	case results.Milliseconds:
		return "in milliseconds"
	case results.PerSecond:
		return "per second"
	}
	return "as a ratio"
}

// roundDigits drops the float noise of a unit conversion (0.07*1000).
func roundDigits(f float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	return r
}

// durationAttributes take a duration string ("30s"), not a number.
var durationAttributes = map[string]bool{
	"duration": true, "ramp_up": true, "timeout": true, "idle_timeout": true, "over": true,
	"schedule_lag_p99": true, "startup_timeout": true, "think_time": true,
}

// numberAttributeUnits is the unit of each number attribute whose value
// is a quantity with a unit (goodput's ttft, a load's rate).
var numberAttributeUnits = map[string]results.Unit{
	"ttft": results.Milliseconds, "tpot": results.Milliseconds, "e2el": results.Milliseconds,
	"rate":          results.PerSecond,
	"achieved_rate": results.Ratio, "in_flight": results.Ratio, "length": results.Ratio,
	"range_ratio": results.Ratio, "alpha": results.Ratio,
	// counts: a unit after one is a mistake of another kind
	"concurrency": results.Count, "requests": results.Count, "warmup": results.Count,
	"input_tokens": results.Count, "output_tokens": results.Count, "prefix_tokens": results.Count,
	"prefix_groups": results.Count, "turns": results.Count, "seed": results.Count,
}

// comparedMetricRE finds the metric compared with what follows:
// "ttft.p95 <" at the end of the text before a number.
var comparedMetricRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\s*(?:<=|>=|==|!=|<|>)\s*$`)

// attributeNameRE finds the attribute a line sets.
var attributeNameRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=`)

// numberAttributeAdvice explains a string holding a number with a unit
// given to the number attribute attr, or "" when s is no such string.
func numberAttributeAdvice(attr *hcl.Attribute, s string) string {
	n, ok := parseNumberWithUnit(s)
	if !ok {
		return ""
	}
	u, known := numberAttributeUnits[attr.Name]
	return strings.Replace(numberWithUnitAdvice(n, attr.Name, u, known), n.text+" is a number", fmt.Sprintf("%s = %q is a string holding a number", attr.Name, s), 1)
}

// numberWithUnitDetail explains n, written in line after before (the text
// of the line up to n), or "" when nothing is known to explain. A duration
// attribute wants a quoted duration; a comparison with a metric, the
// metric's unit; a number attribute, its own.
func numberWithUnitDetail(n numberWithUnit, line, before string, quoted bool) string {
	if m := comparedMetricRE.FindStringSubmatch(before); m != nil {
		if metric, ok := results.LookupMetric(m[1]); ok {
			return numberWithUnitAdvice(n, metric.Name, metric.Unit, true)
		}
	}
	if a := attributeNameRE.FindStringSubmatch(line); a != nil {
		if durationAttributes[a[1]] {
			if quoted {
				return ""
			}
			return fmt.Sprintf("%s takes a duration as a string: write %q, in quotes.", a[1], n.text)
		}
		if u, ok := numberAttributeUnits[a[1]]; ok {
			return numberWithUnitAdvice(n, a[1], u, true)
		}
	}
	return numberWithUnitAdvice(n, "", "", false)
}

// explainNumberUnits rewrites HCL's diagnostics about a number written with
// a unit into one that says so: the syntax error of 500ms unquoted, and
// "a number is required" for "500ms" quoted in an expression.
func explainNumberUnits(diags hcl.Diagnostics, files map[string]*hcl.File) hcl.Diagnostics {
	for _, d := range diags {
		if d.Subject == nil || d.Severity != hcl.DiagError {
			continue
		}
		f := files[d.Subject.Filename]
		if f == nil || d.Subject.Start.Byte < 0 || d.Subject.Start.Byte > d.Subject.End.Byte || d.Subject.End.Byte > len(f.Bytes) {
			continue
		}
		src := f.Bytes
		// by HCL's summaries: its parser's and operators' diagnostics have
		// no type or Extra to tell them by
		switch d.Summary {
		case "Missing newline after argument", "Invalid expression", "Extra characters after expression":
			explainUnquoted(d, src)
		case "Invalid operand":
			explainQuoted(d, src)
		}
	}
	return diags
}

// lineAround is the line of src holding byte at, and where it starts.
func lineAround(src []byte, at int) (string, int) {
	start := strings.LastIndexByte(string(src[:at]), '\n') + 1
	end := strings.IndexByte(string(src[at:]), '\n')
	if end < 0 {
		end = len(src) - at
	}
	return string(src[start : at+end]), start
}

// explainUnquoted rewrites the syntax error at a unit after a number
// ("500ms": the error is at "ms"; "1%": after the "%").
func explainUnquoted(d *hcl.Diagnostic, src []byte) {
	line, start := lineAround(src, d.Subject.Start.Byte)
	at := d.Subject.Start.Byte - start
	for _, m := range numberWithUnitRE.FindAllStringSubmatchIndex(line, -1) {
		if at < m[2] || at > m[1] || (m[2] > 0 && isWordByte(line[m[2]-1])) {
			continue // not at this number, or a digit inside a name (p95)
		}
		n, ok := numberWithUnitAt(line, m)
		if !ok || (m[1] < len(line) && isWordByte(line[m[1]])) {
			continue
		}
		detail := numberWithUnitDetail(n, line, line[:m[0]], false)
		if detail == "" {
			return
		}
		d.Summary = "Number with a unit"
		d.Detail = detail
		d.Subject = &hcl.Range{
			Filename: d.Subject.Filename,
			Start:    linePos(src, start, m[0], d.Subject.Start.Line),
			End:      linePos(src, start, m[1], d.Subject.Start.Line),
		}
		return
	}
}

// explainQuoted rewrites "a number is required" for an operand that is a
// string holding a number with a unit (ttft.p95 < "500ms").
func explainQuoted(d *hcl.Diagnostic, src []byte) {
	lit := string(src[d.Subject.Start.Byte:d.Subject.End.Byte])
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return
	}
	n, ok := parseNumberWithUnit(lit[1 : len(lit)-1])
	if !ok {
		return
	}
	line, start := lineAround(src, d.Subject.Start.Byte)
	detail := numberWithUnitDetail(n, line, line[:d.Subject.Start.Byte-start], true)
	if detail == "" {
		return
	}
	d.Summary = "Number with a unit"
	d.Detail = strings.Replace(detail, n.text+" is a number", lit+" is a string holding a number", 1)
}

func isWordByte(b byte) bool {
	return b == '_' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// linePos is the position of byte off of the line starting at lineStart.
func linePos(src []byte, lineStart, off, line int) hcl.Pos {
	return hcl.Pos{Line: line, Column: utf8.RuneCount(src[lineStart:lineStart+off]) + 1, Byte: lineStart + off}
}
