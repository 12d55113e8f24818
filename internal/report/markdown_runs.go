package report

import (
	"maps"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// mdRuns is the run table of f in markdown: the numbers of each run, what
// a report without a baseline shows where a comparison would be.
func mdRuns(m *mdBuilder, f *results.File) {
	head, rows := runTable(f)
	if len(rows) == 0 {
		return
	}
	align := make([]string, len(head))
	for i := range align {
		align[i] = "---:"
		if i < 2 {
			align[i] = "---"
		}
	}
	lines := []string{"**Runs**", "", "| " + strings.Join(head, " | ") + " |", "|" + strings.Join(align, "|") + "|"}
	for _, row := range rows {
		row[0], row[1] = untrusted.Markdown(row[0]), untrusted.Markdown(row[1]) // a results file's words
		lines = append(lines, "| "+strings.Join(row, " | ")+" |")
	}
	m.block(append(lines, "")...)
}

// mdAsserts lists every assert of f's runs, passed or failed, with the
// values it saw in their units; an assert of a run that was not valid is
// not judged.
func mdAsserts(m *mdBuilder, f *results.File) {
	var rows []string
	for i := range f.Runs {
		r := &f.Runs[i]
		for _, a := range r.Asserts {
			result := "✅ passed"
			switch {
			case !r.Valid():
				result = "not judged (run " + untrusted.Markdown(string(r.Status)) + ")"
			case !a.Passed:
				result = "❌ failed"
			}
			rows = append(rows, "| "+untrusted.Markdown(r.Name)+" | "+untrusted.Code(a.Name)+" | "+a.Condition.Code()+" | "+result+" | "+untrusted.Markdown(AssertValues(a))+" |")
		}
	}
	if len(rows) == 0 {
		return
	}
	m.block(append(append([]string{"**Asserts**", "", "| run | assert | condition | result | values |", "|---|---|---|---|---|"}, rows...), "")...)
}

// AssertValues are the values an assert saw, in their units:
// "ttft.p95 = 182ms, var.ttft_ms = 150ms"; "-" when none.
func AssertValues(a results.AssertResult) string {
	if len(a.Values) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(a.Values))
	for _, name := range slices.Sorted(maps.Keys(a.Values)) {
		parts = append(parts, name+" = "+results.FormatValue(name, a.Values[name], a.Units))
	}
	return strings.Join(parts, ", ")
}

// currentEnv is the environment of a file compared with no baseline.
func currentEnv(f *results.File) []compare.EnvField {
	e := f.Environment
	return []compare.EnvField{
		{Name: "image", Current: e.Image}, {Name: "image digest", Current: e.ImageDigest}, {Name: "vLLM version", Current: e.VLLMVersion},
		{Name: "GPU", Current: e.GPU}, {Name: "model", Current: e.Model}, {Name: "target kind", Current: e.TargetKind}, {Name: "git commit", Current: e.GitSHA},
	}
}

// mdCurrentEnv is the environment table of a run without a baseline.
func mdCurrentEnv(m *mdBuilder, f *results.File) {
	lines := []string{"| environment | current |", "|---|---|"}
	for _, e := range currentEnv(f) {
		if e.Current != "" {
			lines = append(lines, "| "+e.Name+" | "+envCode(e.Current)+" |")
		}
	}
	if len(lines) > 2 {
		m.block(append(lines, "")...)
	}
}
