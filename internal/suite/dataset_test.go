package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/runspec"
)

func datasetScenario(workload string) string {
	return `scenario "own" {
  workload {
    kind = "dataset"
` + workload + `
  }
  load {
    concurrency = 2
    requests    = 4
  }
}
`
}

func TestDatasetFileDecoded(t *testing.T) {
	s, diags := loadWithTrace(t, datasetScenario(`
    file              = "prompts/p.jsonl"
    format            = "jsonl"
    output_tokens     = 64
    max_prompt_tokens = 1000
    max_total_tokens  = 1500`), map[string]string{"prompts/p.jsonl": `{"prompt": "hi"}` + "\n"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	w := s.Plan().Runs()[0].Load.Workload
	if w.Kind != runspec.WorkloadDataset || !strings.HasSuffix(w.DatasetPath, filepath.Join("prompts", "p.jsonl")) || w.DatasetFormat != "jsonl" ||
		w.OutputTokens != 64 || w.MaxPromptTokens != 1000 || w.MaxTotalTokens != 1500 {
		t.Errorf("workload %+v", w)
	}
	var b strings.Builder
	if err := s.Plan().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "format jsonl, prompts of at most 1000 tokens, prompt and answer of at most 1500 tokens") {
		t.Errorf("plan:\n%s", b.String())
	}
	// ShareGPT stays the default, under file as under dataset
	for _, attr := range []string{"file", "dataset"} {
		s, diags = loadWithTrace(t, datasetScenario(attr+` = "s.json"`), map[string]string{"s.json": "[]"})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if w := s.Plan().Runs()[0].Load.Workload; w.DatasetFormat != "" || !strings.HasSuffix(w.DatasetPath, "s.json") {
			t.Errorf("%s: workload %+v", attr, w)
		}
	}
}

func TestDatasetFileErrors(t *testing.T) {
	files := map[string]string{"p.jsonl": `{"prompt": "hi"}` + "\n" + `{"prompt": ""}` + "\n", "p.csv": "prompt\nhi\n"}
	for _, c := range []struct{ name, workload, want string }{
		{"both", "file = \"p.csv\"\n dataset = \"p.csv\"", "file and dataset both name the dataset's file"},
		{"neither", `format = "csv"`, `kind = "dataset" needs file`},
		{"format", "file = \"p.csv\"\n format = \"tsv\"", `format = "tsv": a dataset is one of sharegpt, jsonl, csv`},
		{"broken", "file = \"p.jsonl\"\n format = \"jsonl\"", "p.jsonl:2: prompt is empty"},
		{"wrong format", "file = \"p.jsonl\"\n format = \"csv\"", "Dataset not readable; p.jsonl:1: "},
		{"bound", "file = \"p.csv\"\n format = \"csv\"\n max_prompt_tokens = 0", "max_prompt_tokens = 0: it is the longest prompt"},
		{"missing", "file = \"nope.csv\"\n format = \"csv\"", "nope.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := loadWithTrace(t, datasetScenario(c.workload), files)
			var errs []string
			for _, d := range diags.Errs() {
				errs = append(errs, d.Error())
			}
			if !strings.Contains(strings.Join(errs, "\n"), c.want) {
				t.Errorf("errors:\n%s\nwant one containing %q", strings.Join(errs, "\n"), c.want)
			}
		})
	}
}
