package serverinfo

import "strings"

// How a listed model answered to the name asked for.
const (
	// MatchID: the server lists the name itself.
	MatchID = "id"
	// MatchLatest: the server lists the name with Ollama's ":latest" tag,
	// which requests may leave out.
	MatchLatest = "latest"
	// MatchRoot: the server loaded the model under another served name
	// (vLLM's --served-model-name): its root is the name.
	MatchRoot = "root"
)

// Find returns the listed model that serves want, and how it matched:
// its id, its id with the ":latest" tag Ollama adds (requests for "tiny"
// are served by "tiny:latest"), or its root (vLLM's --served-model-name
// lists the alias as id and the model as root). The id, in that order of
// preference, is what requests must name.
func Find(models []Model, want string) (Model, string, bool) {
	for _, how := range []string{MatchID, MatchLatest, MatchRoot} {
		for _, m := range models {
			switch {
			case how == MatchID && m.ID == want,
				how == MatchLatest && !strings.Contains(want, ":") && m.ID == want+":latest",
				how == MatchRoot && m.Root != "" && m.Root == want:
				return m, how, true
			}
		}
	}
	return Model{}, "", false
}

// IDs lists the models' ids.
func IDs(models []Model) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m.ID
	}
	return out
}
