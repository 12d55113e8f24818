package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// toolName is what OpenAI's API takes as a function's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// fillTools evaluates the workload's tools and tool_choice into w: tools
// a list of OpenAI function tools (an HCL list of objects, or a JSON
// string: jsonencode(...) or file("tools.json")), each's parameters a
// JSON schema; tool_choice "none", "auto", "required" or
// { type = "function", function = { name = ... } } naming one of them.
func (b *workloadBlock) fillTools(ev *evaluator, w *runspec.Workload) {
	if b.Tools == nil {
		if b.ToolChoice != nil {
			ev.errorAt(b.ToolChoice, "tool_choice without tools", "tool_choice says which of the workload's tools the model may call; give tools too.")
		}
		return
	}
	text, ok := jsonValue(ev, b.Tools, "tools")
	if !ok {
		return
	}
	names, ok := checkTools(ev, b.Tools, text)
	if !ok {
		return
	}
	if kind := w.Kind; !w.Chat && (kind == runspec.WorkloadRandom || kind == runspec.WorkloadPrefix) {
		ev.errorAt(b.Tools, "Tools without chat", "tools go on chat requests only; set chat = true (kind = %q sends /v1/completions otherwise).", kind)
		return
	}
	w.Tools = text
	if b.ToolChoice == nil {
		return
	}
	choice, ok := jsonValue(ev, b.ToolChoice, "tool_choice")
	if !ok {
		return
	}
	var mode string
	if json.Unmarshal([]byte(choice), &mode) == nil {
		if mode != "none" && mode != "auto" && mode != "required" {
			ev.errorAt(b.ToolChoice, "Invalid tool_choice", "tool_choice = %q: it is \"none\", \"auto\", \"required\", or { type = \"function\", function = { name = ... } }.%s", mode, didYouMean(mode, []string{"none", "auto", "required"}))
			return
		}
		w.ToolChoice = choice
		return
	}
	var named struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(choice), &named); err != nil || named.Type != "function" {
		ev.errorAt(b.ToolChoice, "Invalid tool_choice", "tool_choice must be \"none\", \"auto\", \"required\", or { type = \"function\", function = { name = ... } }.")
		return
	}
	if !contains(names, named.Function.Name) {
		ev.errorAt(b.ToolChoice, "Unknown tool", "tool_choice names the function %q; the workload's tools are %s.%s", named.Function.Name, strings.Join(names, ", "), didYouMean(named.Function.Name, names))
		return
	}
	w.ToolChoice = choice
}

// jsonValue evaluates attr, an HCL value or a JSON string, as JSON text.
func jsonValue(ev *evaluator, attr *hcl.Attribute, what string) (string, bool) {
	v, ok := ev.value(attr)
	if !ok {
		return "", false
	}
	if v.Type() == cty.String {
		text := v.AsString()
		if !json.Valid([]byte(text)) {
			// a plain word (tool_choice = "auto") is the JSON string it names
			if what == "tool_choice" && !strings.ContainsAny(text, "{}[]\"") {
				b, _ := json.Marshal(text)
				return string(b), true
			}
			ev.errorAt(attr, "Invalid "+what, "%s is not valid JSON.", what)
			return "", false
		}
		return text, true
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		ev.errorAt(attr, "Invalid "+what, "%s can't be encoded as JSON: %v.", what, err)
		return "", false
	}
	return string(b), true
}

// checkTools checks that text is a list of OpenAI function tools with
// distinct valid names and parameters that are JSON schemas, and returns
// their names.
func checkTools(ev *evaluator, attr *hcl.Attribute, text string) ([]string, bool) {
	var tools []struct {
		Type     string `json:"type"`
		Function *struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(text), &tools); err != nil || len(tools) == 0 {
		ev.errorAt(attr, "Invalid tools", "tools must be a non-empty list of tools like { type = \"function\", function = { name = \"get_weather\", parameters = { type = \"object\", ... } } }.")
		return nil, false
	}
	var names []string
	for i, t := range tools {
		at := fmt.Sprintf("tools[%d]", i)
		switch {
		case t.Type != "function" || t.Function == nil:
			ev.errorAt(attr, "Invalid tools", "%s must be { type = \"function\", function = { name = ..., parameters = ... } }.", at)
			return nil, false
		case !toolName.MatchString(t.Function.Name):
			ev.errorAt(attr, "Invalid tools", "%s: the function's name %q must be 1 to 64 letters, digits, _ or -.", at, t.Function.Name)
			return nil, false
		case contains(names, t.Function.Name):
			ev.errorAt(attr, "Invalid tools", "%s: a second function named %q.", at, t.Function.Name)
			return nil, false
		}
		if p := t.Function.Parameters; len(p) > 0 && string(p) != "null" {
			if why := schemaProblem(string(p)); why != "" {
				ev.errorAt(attr, "Invalid tools", "%s (%s): parameters %s.", at, t.Function.Name, why)
				return nil, false
			}
		}
		names = append(names, t.Function.Name)
	}
	return names, true
}
