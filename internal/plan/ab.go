package plan

import (
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
)

// ABMode is how an A/B gate (--ab-var) keeps the two sides' server
// containers while it alternates blocks between them: the mode recorded
// in each side's results file (results.ABMode).
type ABMode = results.ABMode

// A/B modes (see results.ABMode).
const (
	ABTogether  = results.ABTogether
	ABAlternate = results.ABAlternate
	ABCrossover = results.ABCrossover
)

// ABModes returns the A/B modes' names.
func ABModes() []string {
	return []string{string(ABTogether), string(ABAlternate), string(ABCrossover)}
}

// ValidABMode reports whether s names an A/B mode.
func ValidABMode(s string) bool {
	switch ABMode(s) {
	case ABTogether, ABAlternate, ABCrossover:
		return true
	}
	return false
}

// ABModeFor is the mode an A/B gate uses for a target of kind: the gate
// block's ab, else the defaults block's, else ABAlternate for a server
// container (endpoints and simulators always stay up: ABTogether).
func (s *Suite) ABModeFor(kind runspec.TargetKind) ABMode {
	switch {
	case kind != runspec.KindServer:
		return ABTogether
	case s.Gate != nil && s.Gate.AB != "":
		return s.Gate.AB
	case s.AB != "":
		return s.AB
	}
	return ABAlternate
}
