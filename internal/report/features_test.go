package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/fakeserver"
	"github.com/llmgate/llmgate/internal/golden"
	"github.com/llmgate/llmgate/internal/serverinfo"
	"github.com/llmgate/llmgate/results"
)

// TestFeaturesTable checks the probe table of an Ollama-like server and of
// a vLLM-like one with a long chat template and a 1 s idle timeout. The
// durations a probe measures vary run to run: they are fixed here.
func TestFeaturesTable(t *testing.T) {
	vllm := fakeserver.VLLM("meta-llama/Llama-3.1-8B-Instruct", 8192)
	vllm.Models[0].ID = "llama"
	vllm.TemplatePrefix = 26
	for name, cfg := range map[string]fakeserver.Config{"ollama": fakeserver.Ollama("tiny", 5), "vllm": vllm} {
		srv := fakeserver.Start(t, cfg)
		f := serverinfo.Discover(context.Background(), serverinfo.Options{BaseURL: srv.URL, Generate: true})
		f.Role.Lead, f.Role.TTFT = 120*time.Microsecond, 2*time.Millisecond
		f.IdleWaited = 10 * time.Second
		if name == "vllm" {
			f.IdleWaited, f.IdleTimeout = 0, time.Second
		}
		var b bytes.Buffer
		if err := FeaturesTable(&b, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "../../testdata/report/probe_"+name+".golden", b.String())
	}
}

// TestMissingFeaturesInReports checks every report says what the runs'
// servers lacked, once a feature, with the runs it cost, and neutralises
// what a results file says there.
func TestMissingFeaturesInReports(t *testing.T) {
	m := []results.MissingFeature{{Feature: "/metrics", Cost: "no server.* metrics"}, {Feature: "/tokenize", Cost: "lengths by usage\n::error::x"}}
	f := &results.File{Runs: []results.Run{{Name: "a", MissingFeatures: m}, {Name: "b", MissingFeatures: m[:1]}}}
	txt := MissingText(f)
	for _, want := range []string{"/metrics (every run): no server.* metrics", "/tokenize (a): lengths by usage"} {
		if !strings.Contains(txt, want) {
			t.Errorf("terminal lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "\n::error") {
		t.Errorf("a workflow command reached the terminal text:\n%s", txt)
	}
	var md mdBuilder
	md.limit = 1 << 20
	mdMissing(&md, f)
	if s := md.b.String(); !strings.Contains(s, "🔌 **Server features missing**") || !strings.Contains(s, "`/metrics` (every run)") || strings.Contains(s, "\n::error") {
		t.Errorf("markdown:\n%s", s)
	}
	var h bytes.Buffer
	if err := HTML(&h, f, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "<h2>Server features missing</h2>") || !strings.Contains(h.String(), "<td class=\"l\">every run</td>") {
		t.Errorf("HTML lacks the section")
	}
}

// TestImportedBaselineMarked checks rows judged against a baseline imported
// from vllm bench serve's chat backend are marked, and the note says what
// its figures measure differently.
func TestImportedBaselineMarked(t *testing.T) {
	base, cur, _ := fixture()
	for i := range base.Runs {
		base.Runs[i].Imported = &results.Imported{From: results.ImportedVLLMBench, Backend: "openai-chat", Date: "20251014-093012", DateZone: "unknown"}
	}
	c := compare.Compare(base, cur, compare.DefaultConfig())
	var term bytes.Buffer
	if err := Terminal(&term, c, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	md := Markdown(c, MarkdownOptions{})
	for name, out := range map[string]string{"terminal": term.String(), "markdown": md} {
		if !strings.Contains(out, "ttft.p95 †") || !strings.Contains(out, "baseline imported from vllm bench serve (backend openai-chat)") || !strings.Contains(out, "ITL sample of every request") {
			t.Errorf("%s lacks the mark or the note:\n%s", name, out)
		}
	}
}
