package suite

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/dataset"
	"github.com/llmgate/llmgate/runspec"
)

// fillDatasetFile evaluates a dataset workload's file (file, or dataset
// as before), its format and its length bounds.
func (b *workloadBlock) fillDatasetFile(ev *evaluator, w *runspec.Workload, files *fileRoot, where, within hcl.Range) {
	attr := b.File
	switch {
	case b.File != nil && b.Dataset != nil:
		ev.errorAt(b.Dataset, "Two dataset files", "file and dataset both name the dataset's file; keep file (dataset is its older name).")
	case b.File == nil && b.Dataset == nil:
		ev.consequenceRange(where, within, "Dataset workload without a file", "kind = \"dataset\" needs file: the path of the prompts, relative to the suite (a ShareGPT JSON file, or with format = \"jsonl\" or \"csv\" your own prompts).")
	case b.File == nil:
		attr = b.Dataset
	}
	format := dataset.FormatShareGPT
	if f, ok := ev.str(b.Format); ok {
		if !contains(dataset.Formats, f) {
			ev.errorAt(b.Format, "Unknown dataset format", "format = %q: a dataset is one of %s (a ShareGPT JSON file; one JSON object a line with \"prompt\" or \"messages\" and optionally \"output_tokens\"; or a CSV file with a prompt column and optionally output_tokens).%s", f, strings.Join(dataset.Formats, ", "), didYouMean(f, dataset.Formats))
			return
		}
		format = f
	}
	if format != dataset.FormatShareGPT {
		w.DatasetFormat = format
	}
	bound := func(a *hcl.Attribute, dst *int, what string) {
		if n, ok := ev.int(a); ok {
			if n < 1 {
				ev.errorAt(a, "Invalid "+a.Name, "%s = %d: it is the longest %s a run sends, in tokens, so it must be at least 1.", a.Name, n, what)
				return
			}
			*dst = n
		}
	}
	bound(b.MaxPrompt, &w.MaxPromptTokens, "prompt")
	bound(b.MaxTotal, &w.MaxTotalTokens, "prompt and answer together")
	p, ok := ev.str(attr)
	if !ok {
		return
	}
	path, err := files.dataset(p)
	if err != nil {
		ev.errorAt(attr, "Dataset not found", "%v.", err)
		return
	}
	w.DatasetPath = path
	if w.DatasetFormat != "" {
		if _, err := dataset.ReadFile(path, w.DatasetFormat); err != nil {
			ev.errorAt(attr, "Dataset not readable", "%s.", strings.TrimSuffix(relativeError(err, path, p), "."))
		}
	}
}

// relativeError names p, as the suite wrote it, where err names the file
// at path.
func relativeError(err error, path, p string) string {
	return strings.Replace(fmt.Sprint(err), path, p, 1)
}
