package suite

import "os"

// Options are the outside inputs a suite may read while loading.
type Options struct {
	// Vars overrides variable defaults, as given by --var name=value.
	// They win over LLMGATE_VAR_<name> from the environment.
	Vars map[string]string
	// Getenv reads the environment for env() and LLMGATE_VAR_<name>;
	// nil means os.Getenv.
	Getenv func(string) string
}

func (o Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}
