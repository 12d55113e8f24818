package suite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolSuite is a scenario whose chat workload carries the given lines.
func toolSuite(lines string) string {
	return "scenario \"s\" {\n  load {\n    concurrency = 1\n    requests = 4\n  }\n  workload {\n    chat = true\n" + lines + "\n  }\n}\n"
}

// TestTools reads tools as an HCL list and as JSON from a file, and
// tool_choice as a mode and as a named function; and refuses what the
// server would: not a list of function tools, a name OpenAI does not
// take, parameters that are no JSON schema, a tool_choice naming no
// tool, tools on /v1/completions.
func TestTools(t *testing.T) {
	hclTools := `tools = [{ type = "function", function = { name = "get_weather", parameters = { type = "object", properties = { city = { type = "string" } }, required = ["city"] } } }]`
	s, diags := loadText(t, toolSuite(hclTools+"\n    tool_choice = \"required\""), Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	w := s.Scenarios[0].Runs[0].Load.Workload
	var tools []map[string]any
	if err := json.Unmarshal([]byte(w.Tools), &tools); err != nil || len(tools) != 1 || w.ToolChoice != `"required"` {
		t.Fatalf("tools %s, tool_choice %s: want one tool, \"required\"", w.Tools, w.ToolChoice)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`[{"type": "function", "function": {"name": "lookup"}}]`), 0o644)
	src := toolSuite(`tools = file("tools.json")` + "\n    tool_choice = { type = \"function\", function = { name = \"lookup\" } }")
	path := filepath.Join(dir, "suite.hcl")
	os.WriteFile(path, []byte(src), 0o644)
	s, diags = Load(path, Options{Getenv: func(string) string { return "" }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if w := s.Scenarios[0].Runs[0].Load.Workload; !strings.Contains(w.Tools, `"lookup"`) || !strings.Contains(w.ToolChoice, `"lookup"`) {
		t.Errorf("from a file: tools %s, tool_choice %s", w.Tools, w.ToolChoice)
	}
	for _, c := range []struct{ lines, want string }{
		{`tools = "{nope"`, "tools is not valid JSON"},
		{`tools = [{ name = "x" }]`, `tools[0] must be { type = "function"`},
		{`tools = [{ type = "function", function = { name = "has space" } }]`, "1 to 64 letters"},
		{`tools = [{ type = "function", function = { name = "a" } }, { type = "function", function = { name = "a" } }]`, `a second function named "a"`},
		{`tools = [{ type = "function", function = { name = "a", parameters = { type = 12 } } }]`, "parameters is not a valid JSON schema"},
		{hclTools + "\n    tool_choice = \"sometimes\"", `tool_choice = "sometimes"`},
		{hclTools + "\n    tool_choice = { type = \"function\", function = { name = \"get_wether\" } }", `Did you mean "get_weather"?`},
		{`tool_choice = "auto"`, "tool_choice without tools"},
	} {
		errs := strings.Join(errorsOf(t, toolSuite(c.lines)), "\n")
		if !strings.Contains(errs, c.want) {
			t.Errorf("%s: errors %q, want one saying %q", c.lines, errs, c.want)
		}
	}
	noChat := strings.Replace(toolSuite(hclTools), "chat = true", "chat = false", 1)
	if errs := strings.Join(errorsOf(t, noChat), "\n"); !strings.Contains(errs, "set chat = true") {
		t.Errorf("tools without chat: %q", errs)
	}
}
