package suite

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
)

// suggest returns the candidate closest to given, or "" when none is close
// enough to be a likely typo.
func suggest(given string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := levenshtein.Distance(given, c, nil)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 2
	if l := len(given) / 3; l > limit {
		limit = l
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// didYouMean returns " Did you mean "x"?" for the closest candidate (or
// the few equally close ones), or "" when none is close.
func didYouMean(given string, candidates []string) string {
	best := suggest(given, candidates)
	if best == "" {
		return ""
	}
	dist := levenshtein.Distance(given, best, nil)
	var ties []string
	for _, c := range candidates {
		if levenshtein.Distance(given, c, nil) == dist && !contains(ties, c) {
			ties = append(ties, fmt.Sprintf("%q", c))
		}
	}
	if len(ties) > 3 {
		ties = ties[:3]
	}
	switch len(ties) {
	case 1:
		return fmt.Sprintf(" Did you mean %s?", ties[0])
	default:
		return fmt.Sprintf(" Did you mean %s or %s?", strings.Join(ties[:len(ties)-1], ", "), ties[len(ties)-1])
	}
}
