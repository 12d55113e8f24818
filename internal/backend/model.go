package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/llmgate/llmgate/internal/serverinfo"
)

// ErrWrongModel is wrapped when a server serves another model than the
// one asked for.
var ErrWrongModel = errors.New("the server serves another model")

// servedNames are the names a server's args give with
// --served-model-name (vLLM takes one or more after the flag).
func servedNames(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := strings.CutPrefix(a, "--served-model-name="); ok {
			out = append(out, v)
			continue
		}
		if a != "--served-model-name" {
			continue
		}
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

// checkModel asks the started server what it serves and returns the name
// requests must use for want. The server serves want when /v1/models lists
// it (as its id, with Ollama's ":latest" tag, or as the root of a served
// alias), or, with --served-model-name in args, lists one of those names
// without a root that says it loaded something else. Anything else is
// ErrWrongModel naming both models: most often a vLLM image whose
// entrypoint is the api_server module, which ignores a positional model
// and serves its default (modelFlag says whether it got --model).
func checkModel(ctx context.Context, base, apiKey, want string, args []string, modelFlag bool) (string, error) {
	models, err := serverinfo.Models(ctx, nil, base, apiKey)
	if err != nil {
		if want != "" {
			return want, nil // best effort: the first request will tell
		}
		return "", nil
	}
	if want == "" {
		if len(models) > 0 {
			return models[0].ID, nil
		}
		return "", nil
	}
	if m, _, ok := serverinfo.Find(models, want); ok {
		return m.ID, nil
	}
	names := servedNames(args)
	for _, m := range models {
		for _, n := range names {
			if m.ID == n && m.Root == "" {
				return m.ID, nil
			}
		}
	}
	var what []string
	for _, m := range models {
		w := fmt.Sprintf("%q", m.ID)
		if m.Root != "" && m.Root != m.ID {
			w += fmt.Sprintf(" (loaded from %q)", m.Root)
		}
		what = append(what, w)
	}
	served := "nothing"
	if len(what) > 0 {
		served = strings.Join(what, ", ")
	}
	msg := fmt.Sprintf("it serves %s, not the requested %q", served, want)
	if !modelFlag {
		msg += "; an image whose entrypoint is vLLM's api_server module (vllm/vllm-openai up to v0.10.2, or built from an older Dockerfile) ignores a positional model and serves its default: set model_flag = true in the server block to pass --model"
	}
	return "", &wrongModel{msg: msg}
}

// wrongModel is ErrWrongModel with its text.
type wrongModel struct{ msg string }

func (e *wrongModel) Error() string { return e.msg }
func (e *wrongModel) Unwrap() error { return ErrWrongModel }
