package backend

import (
	"strings"

	"github.com/llmgate/llmgate/internal/sim"
	"github.com/llmgate/llmgate/runspec"
)

// KnownContext is the model context, in tokens, that spec's server will
// have, when it is known before the server starts, and where that comes
// from: a simulator's --max-model-len or profile, a server's
// --max-model-len. 0 when it is not known (an endpoint, a server that
// takes the model's own).
func KnownContext(spec runspec.Target) (int, string) {
	switch spec.Kind {
	case runspec.KindSimulator:
		args := spec.Args
		if spec.Model != "" {
			args = append([]string{spec.Model}, args...)
		}
		cfg, _, err := sim.ParseArgs(args)
		if err != nil {
			return 0, ""
		}
		if spec.Profile != "" {
			cfg.Profile = spec.Profile
		}
		n, err := sim.ContextLength(cfg)
		if err != nil {
			return 0, ""
		}
		if cfg.MaxModelLen > 0 {
			return n, "its --max-model-len"
		}
		p, _ := sim.LookupProfile(cfg.Profile)
		if p == nil {
			return n, "the simulator profile's context"
		}
		return n, "the context of simulator profile " + p.Name
	case runspec.KindServer:
		n := 0
		for i, a := range spec.Args {
			v, ok := strings.CutPrefix(a, "--max-model-len=")
			if !ok && (a == "--max-model-len" || a == "--max_model_len") && i+1 < len(spec.Args) {
				v, ok = spec.Args[i+1], true
			}
			if ok {
				if m, err := sim.ParseModelLen(v); err == nil && m > 0 {
					n = m // the last one wins, as on a command line
				}
			}
		}
		if n > 0 {
			return n, "its --max-model-len"
		}
	}
	return 0, ""
}
