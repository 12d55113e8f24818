package report

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/internal/telemetry"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// FeaturesTable writes what a server supports of what llmgate uses, as
// `llmgate probe` prints it: one row a feature, then what llmgate does
// without each one the server lacks. Names the server reported are shown
// through package untrusted.
func FeaturesTable(w io.Writer, f *serverinfo.Features) error {
	t := &table{left: map[int]bool{1: true}}
	t.add("feature", "this server")
	if f.ModelsError != "" {
		t.add("models", "unknown: "+untrusted.Line(f.ModelsError))
	}
	for i, m := range f.Models {
		name := "models"
		if i > 0 {
			name = ""
		}
		t.add(name, modelCell(m))
	}
	if f.ModelsError == "" && len(f.Models) == 0 {
		t.add("models", "none listed")
	}
	if f.Model == "" && len(f.Models) > 1 {
		t.add("", "(several: the checks below need --model)")
	}
	t.add("token-id prompts", checkCell(f.TokenIDs))
	t.add("role chunk", roleCell(f.Role))
	t.add("usage, completions", usageCell(f.CompletionsUsage))
	t.add("usage, chat", usageCell(f.ChatUsage))
	t.add("ignore_eos", lengthCell(f.IgnoreEOS))
	t.add("min_tokens", lengthCell(f.MinTokens))
	t.add("/tokenize", endpointCell(f.Tokenize))
	t.add("chat template prefix", templateCell(f))
	metrics := endpointCell(f.Metrics)
	if f.Metrics.OK() {
		metrics = "yes, " + familyCell(f.MetricsFamily)
	}
	t.add("/metrics", metrics)
	t.add("prefix-cache reset", endpointCell(f.Reset))
	t.add("/health", endpointCell(f.Health))
	version := endpointCell(f.Version)
	if f.ServerVersion != "" {
		version = "yes, " + untrusted.Line(f.ServerVersion)
	}
	t.add("/version", version)
	t.add("idle keep-alive timeout", idleCell(f))
	var b strings.Builder
	if err := t.write(&b); err != nil {
		return err
	}
	if missing := f.Missing(); len(missing) > 0 {
		b.WriteString("\nWithout them llmgate does this:\n")
		writeMissing(&b, missing, "  ")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing the features table: %w", err)
	}
	return nil
}

func modelCell(m serverinfo.Model) string {
	s := untrusted.Line(m.ID)
	if m.Root != "" && m.Root != m.ID {
		s += " (" + untrusted.Line(m.Root) + ")"
	}
	if m.MaxModelLen > 0 {
		return s + fmt.Sprintf(", context %d tokens", m.MaxModelLen)
	}
	return s + ", context not said"
}

func checkCell(c serverinfo.Check) string {
	switch {
	case !c.Known && c.Note != "":
		return "unknown: " + untrusted.Line(c.Note)
	case !c.Known:
		return "not checked"
	case c.Supported:
		return "yes"
	}
	return "no: " + untrusted.Line(c.Note)
}

func roleCell(r serverinfo.Role) string {
	switch r.Kind {
	case serverinfo.RoleChunk:
		return fmt.Sprintf("a chunk of its own, %s before the first token (TTFT %s)", durationCell(r.Lead), durationCell(r.TTFT))
	case serverinfo.RoleInFirstToken:
		return "in the first token's chunk"
	case serverinfo.RoleNone:
		return "never sent"
	}
	return "not checked"
}

func usageCell(u serverinfo.Usage) string {
	if !u.Known {
		return "not checked"
	}
	var parts []string
	if u.Final {
		parts = append(parts, "final")
	}
	switch {
	case u.Continuous:
		parts = append(parts, "continuous (counts up on every chunk)")
	case u.Zeroed:
		parts = append(parts, "zeroed (zeros on every chunk)")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func lengthCell(l serverinfo.LengthCheck) string {
	switch {
	case !l.Known() && l.Note != "":
		return "unknown: " + untrusted.Line(l.Note)
	case !l.Known():
		return "not checked"
	case l.Honoured():
		return fmt.Sprintf("honoured (%d of %d tokens)", l.Got, l.Asked)
	}
	return fmt.Sprintf("not honoured: %d of %d tokens", l.Got, l.Asked)
}

func endpointCell(e serverinfo.Endpoint) string {
	switch {
	case e.OK():
		return "yes"
	case e.Status != 0:
		return fmt.Sprintf("no (http %d %s)", e.Status, http.StatusText(e.Status))
	case e.Err != "":
		return "unknown: " + untrusted.Line(e.Err)
	}
	return "not checked"
}

func templateCell(f *serverinfo.Features) string {
	if f.TemplatePrefix < 0 {
		return "unknown (needs /tokenize)"
	}
	return fmt.Sprintf("%d tokens shared by every chat request", f.TemplatePrefix)
}

func familyCell(fam string) string {
	switch fam {
	case telemetry.MetricsVLLM:
		return "vLLM's names"
	case telemetry.MetricsSGLang:
		return "SGLang's names"
	case telemetry.MetricsLlamaCpp:
		return "llama.cpp's names"
	}
	return "but no vLLM, SGLang or llama.cpp metric"
}

func idleCell(f *serverinfo.Features) string {
	switch {
	case f.IdleTimeout > 0:
		return "closes idle connections after " + durationCell(f.IdleTimeout)
	case f.IdleWaited > 0:
		return "none seen in " + durationCell(f.IdleWaited)
	}
	return "not checked"
}

// durationCell shows a probe's duration: milliseconds below 1 s.
func durationCell(d time.Duration) string {
	if d < time.Second {
		return fmtMs(float64(d) / float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// writeMissing lists missing features with their costs, one a line.
func writeMissing(b *strings.Builder, missing []results.MissingFeature, indent string) {
	for _, m := range missing {
		fmt.Fprintf(b, "%s%s: %s\n", indent, untrusted.Line(m.Feature), untrusted.Line(m.Cost))
	}
}

// MissingFeatures gathers what the runs' servers lacked: each feature
// with its cost and the runs it cost, in first-seen order.
func MissingFeatures(f *results.File) []MissingRow {
	var out []MissingRow
	for i := range f.Runs {
		r := &f.Runs[i]
		for _, m := range r.MissingFeatures {
			at := slices.IndexFunc(out, func(x MissingRow) bool { return x.MissingFeature == m })
			if at < 0 {
				out = append(out, MissingRow{MissingFeature: m})
				at = len(out) - 1
			}
			out[at].Runs = append(out[at].Runs, r.Name)
		}
	}
	return out
}

// MissingRow is one missing feature and the runs it cost.
type MissingRow struct {
	results.MissingFeature
	Runs []string
}

// runsPhrase says which runs: "every run" when all of f's did.
func (m MissingRow) runsPhrase(total int) string {
	if len(m.Runs) == total {
		return "every run"
	}
	return strings.Join(m.Runs, ", ")
}

// MissingText is the terminal's block of missing server features, "" when
// none: what `llmgate run` prints after its table and the terminal report
// shows.
func MissingText(f *results.File) string {
	rows := MissingFeatures(f)
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("server features missing:\n")
	for _, m := range rows {
		fmt.Fprintf(&b, "  %s (%s): %s\n", untrusted.Line(m.Feature), untrusted.Line(m.runsPhrase(len(f.Runs))), untrusted.Line(m.Cost))
	}
	return b.String()
}
