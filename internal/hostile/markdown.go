package hostile

import "strings"

// Live is markdown without its code fences and inline code spans (a
// backslash-escaped backtick opens none): what GitHub renders as markup,
// where a test looks for text that would act.
func Live(md string) string {
	var out strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " ")
		if run := len(t) - len(strings.TrimLeft(t, "`")); run >= 3 {
			switch {
			case fence == "":
				fence = t[:run]
				continue
			case run >= len(fence) && strings.TrimSpace(t[run:]) == "":
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		for i := 0; i < len(line); {
			switch {
			case line[i] == '\\' && i+1 < len(line):
				out.WriteString(line[i : i+2])
				i += 2
				continue
			case line[i] != '`':
				out.WriteByte(line[i])
				i++
				continue
			}
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			end := strings.Index(line[i+n:], line[i:i+n])
			if end < 0 {
				out.WriteString(line[i : i+n])
				i += n
				continue
			}
			i += 2*n + end
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// ActiveMarkdown is what must never appear in Live markdown that quotes
// outside text: HTML, images, mentions, autolinks, references, a bidi
// override and llmgate's marker for another suite.
var ActiveMarkdown = []string{"</details> <img", "<img", "@octocat", "@team", "![i](", "<!-- llmgate:other-suite",
	"https://evil", "www.evil", "gate#1", " #2", "GH-3", "\u202e"}
