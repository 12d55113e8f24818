package trace

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The Azure traces' columns.
const (
	azureTimestamp = "TIMESTAMP"
	azureContext   = "ContextTokens"
	azureGenerated = "GeneratedTokens"
)

// azureParser reads an Azure LLM inference trace: a header that names the
// three columns (in any order, matched without regard to case, other
// columns ignored), then one row a request.
type azureParser struct {
	columns      int
	ts, ctx, gen int
	headerSeen   bool
	headerLine   int
	// first is the first row's time: timestamps are ms after it (ms
	// since 1970 in a float64 would lose the traces' 100 ns)
	first time.Time
}

func (p *azureParser) parse(line int, b []byte) (Row, float64, bool, error) {
	s := strings.TrimRight(string(b), "\r")
	if strings.ContainsRune(s, '"') {
		return Row{}, 0, false, errAt(line, "quoted CSV fields are not read: the Azure traces have none")
	}
	fields := strings.Split(s, ",")
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	if !p.headerSeen {
		return Row{}, 0, false, p.header(line, fields)
	}
	if len(fields) != p.columns {
		return Row{}, 0, false, errAt(line, "%d fields, but the header on line %d names %d", len(fields), p.headerLine, p.columns)
	}
	at, err := parseAzureTime(fields[p.ts])
	if err != nil {
		return Row{}, 0, false, errAt(line, "%s %q is not a time like 2023-11-16 18:15:46.6805900", azureTimestamp, clip(fields[p.ts]))
	}
	in, err1 := strconv.ParseInt(fields[p.ctx], 10, 64)
	out, err2 := strconv.ParseInt(fields[p.gen], 10, 64)
	if err1 != nil {
		return Row{}, 0, false, errAt(line, "%s %q is not a whole number", azureContext, clip(fields[p.ctx]))
	}
	if err2 != nil {
		return Row{}, 0, false, errAt(line, "%s %q is not a whole number", azureGenerated, clip(fields[p.gen]))
	}
	if err := checkLengths(line, in, out, azureContext, azureGenerated); err != nil {
		return Row{}, 0, false, err
	}
	if p.first.IsZero() {
		p.first = at
	}
	ms := float64(at.Sub(p.first)) / float64(time.Millisecond)
	if checkMS(line, ms, azureTimestamp) != nil {
		return Row{}, 0, false, errAt(line, "%s %s is more than 30 years from the first row's", azureTimestamp, fields[p.ts])
	}
	return Row{Input: int(in), Output: int(out)}, ms, true, nil
}

// header finds the columns in the header line.
func (p *azureParser) header(line int, fields []string) error {
	p.ts, p.ctx, p.gen = -1, -1, -1
	for i, f := range fields {
		switch {
		case strings.EqualFold(f, azureTimestamp):
			p.ts = i
		case strings.EqualFold(f, azureContext):
			p.ctx = i
		case strings.EqualFold(f, azureGenerated):
			p.gen = i
		}
	}
	if p.ts < 0 || p.ctx < 0 || p.gen < 0 {
		return errAt(line, "the header %q does not name the columns %s, %s and %s of the Azure LLM inference traces", clip(strings.Join(fields, ",")), azureTimestamp, azureContext, azureGenerated)
	}
	p.columns, p.headerSeen, p.headerLine = len(fields), true, line
	return nil
}

// azureLayouts are the timestamp forms of the Azure traces (2023:
// "2023-11-16 18:15:46.6805900"; with a zone or a T as well).
var azureLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05.999999999Z07:00",
}

func parseAzureTime(s string) (time.Time, error) {
	var err error
	for _, l := range azureLayouts {
		var t time.Time
		if t, err = time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// clip shortens outside text quoted in an error to 60 bytes, cut at a
// character's start.
func clip(s string) string {
	const n = 60
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
