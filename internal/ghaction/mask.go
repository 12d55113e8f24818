package ghaction

import (
	"io"
	"strings"

	githubactions "github.com/sethvargo/go-githubactions"
)

// AddMask registers secret with the runner (::add-mask::) on w, so the
// runner hides it in the log whatever prints it. A value on several lines
// is registered line by line, as the runner matches one line at a time.
func AddMask(w io.Writer, secret string) {
	gha := githubactions.New(githubactions.WithWriter(w))
	for _, line := range strings.Split(secret, "\n") {
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			gha.AddMask(line)
		}
	}
}
