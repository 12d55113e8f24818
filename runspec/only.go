package runspec

import "strings"

// MatchesOnly reports whether a run called name, of scenario, is one that
// --only patterns select: a pattern selects the runs whose name or scenario
// it matches, where * matches any run of characters and everything else
// (brackets included) is literal.
func MatchesOnly(only []string, name, scenario string) bool {
	for _, pat := range only {
		if Selects(pat, name, scenario) {
			return true
		}
	}
	return false
}

// Selects reports whether the one --only pattern pat matches the run's
// name or its scenario.
func Selects(pat, name, scenario string) bool {
	return wildcard(pat, name) || wildcard(pat, scenario)
}

func wildcard(pat, name string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(name, part)
		if i < 0 {
			return false
		}
		name = name[i+len(part):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}
