package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/untrusted"
)

// hostileFile is sampleFile with outside text in every kind of field.
func hostileFile() *File {
	f := sampleFile()
	r := &f.Runs[0]
	r.Name = "sweep\n::error title=Forged::x"
	r.Scenario = "sweep\u202eevil"
	r.Params = map[string]string{"concurrency\n": "@team\x1b[2J"}
	r.Error = "container died\r\n\x1b]0;title\x07last line\n\ttab kept"
	r.Asserts[0].Message = untrusted.String("boom \x00 " + strings.Repeat("x", MaxTextBytes))
	f.Environment.Model = "model\n::warning::forged"
	f.Environment.VLLMVersion = "0.11\u2066"
	return f
}

// The probes: names, messages, conditions and environment fields of a
// results file reached the log, the step summary and the PR comment raw.
// A file holding them is refused on read, each named by its path.
func TestCheckRefusesOutsideText(t *testing.T) {
	f := hostileFile()
	err := f.Check()
	if err == nil {
		t.Fatal("Check accepted the hostile file")
	}
	for _, want := range []string{
		"runs[0].name holds the control character U+000A",
		"runs[0].scenario holds the bidirectional control U+202E",
		`runs[0].params key holds the control character U+000A`,
		`runs[0].params["concurrency\n"] holds the control character U+001B`,
		"runs[0].error holds the control character U+000D",
		"runs[0].asserts[0].message is 65543 bytes, more than 65536 for text",
		"environment.model holds the control character U+000A",
		"environment.vllm_version holds the bidirectional control U+2066",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error lacks %q:\n%v", want, err)
		}
	}
	// free text keeps its lines and tabs; a name may not
	ok := sampleFile()
	ok.Runs[0].Error = "line one\n\tline two"
	if err := ok.Check(); err != nil {
		t.Errorf("multi-line error refused: %v", err)
	}
	ok.Runs[0].Name = strings.Repeat("n", MaxNameBytes+1)
	if err := ok.Check(); err == nil || !strings.Contains(err.Error(), "more than 512 for a name") {
		t.Errorf("a long name: %v", err)
	}
}

// llmgate's own file always reads back: Write makes every string pass the
// checks first, whatever a server or a container said.
func TestWriteCleansOutsideText(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileFile().Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatalf("llmgate's own file does not read back: %v", err)
	}
	r := got.Runs[0]
	for field, want := range map[string]string{
		"name":     "sweep ::error title=Forged::x",
		"scenario": "sweepevil",
		"error":    "container died\nlast line\n\ttab kept",
		"model":    "model ::warning::forged",
		"params":   "concurrency =@team",
	} {
		var v string
		switch field {
		case "name":
			v = r.Name
		case "scenario":
			v = r.Scenario
		case "error":
			v = r.Error.Raw()
		case "model":
			v = got.Environment.Model.Raw()
		case "params":
			for k, val := range r.Params {
				v = k + "=" + val
			}
		}
		if v != want {
			t.Errorf("%s = %q, want %q", field, v, want)
		}
	}
	if m := r.Asserts[0].Message; len(m) > MaxTextBytes || !strings.HasSuffix(m.Raw(), "…") {
		t.Errorf("message of %d bytes, want it cut to %d with …", len(m), MaxTextBytes)
	}
}
