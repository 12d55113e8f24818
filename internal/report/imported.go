package report

import (
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// importedMark marks a row judged against an imported baseline.
const importedMark = " †"

// rowMark is importedMark for a row whose baseline was imported, else "".
func rowMark(r *compare.Row) string {
	if r.BaselineImported != nil {
		return importedMark
	}
	return ""
}

// importedNotes explain the marked rows, once for each tool and backend:
// what the imported figures measure differently from llmgate's.
func importedNotes(c *compare.Comparison) []string {
	seen := map[results.Imported]bool{}
	var out []string
	for i := range c.Rows {
		im := c.Rows[i].BaselineImported
		if im == nil || seen[*im] {
			continue
		}
		seen[*im] = true
		out = append(out, importedNote(im))
	}
	return out
}

// importedNote is the note of one imported baseline.
func importedNote(im *results.Imported) string {
	from := "† baseline imported from " + untrusted.Line(im.From)
	if im.Backend != "" {
		from += " (backend " + untrusted.Line(im.Backend) + ")"
	}
	if im.Chat() {
		return from + ": vllm bench starts a chat request's TTFT at its role chunk and counts the gap from it to the first content chunk (about 0 on vLLM) as an ITL sample of every request, and in the versions before its fix it ends E2EL (and so TPOT) at the usage-only chunk after the last token; those rows compare figures not measured alike (docs/running.md)"
	}
	return from + ": its figures follow vLLM's formulas, as llmgate's do; the load and the prompts were its own"
}
