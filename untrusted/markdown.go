package untrusted

import (
	"regexp"
	"strings"
)

// MarkerPrefix starts the hidden HTML comment by which llmgate finds its own
// pull-request comment. Only llmgate may write one; Markdown and
// DefuseMarkers make sure text from elsewhere never carries it.
const MarkerPrefix = "<!-- llmgate:"

// mdReplacer escapes what GitHub-flavoured markdown or its HTML would act
// on: HTML tags and entities (so no </details>, <img> or marker comment),
// links and images, code spans, table cells, math and mentions. Emphasis
// and parentheses are left alone: without brackets or tags they cannot
// link, embed or hide anything.
var mdReplacer = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`\`, `\\`,
	"`", "\\`",
	"[", `\[`,
	"]", `\]`,
	"|", `\|`,
	"$", `\$`, // $…$ is math on GitHub
	"@", "@"+zwsp, // a zero-width space after @ defuses a mention and an e-mail autolink
)

// zwsp is a zero-width space as an HTML entity: invisible, and it breaks
// the patterns GitHub links after parsing (mentions, references,
// autolinks), which a backslash escape would not.
const zwsp = "&#8203;"

// autolinks are what GitHub turns into links in plain text even without
// brackets: issue and pull request references (#1, org/repo#1, GH-2), URLs
// with a scheme (https://…) and www. addresses. Each is broken with a
// zero-width space where its pattern needs a character.
var autolinks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`#([0-9])`), "#" + breakMark + "$1"},
	{regexp.MustCompile(`(?i)\b(gh-)([0-9])`), "$1" + breakMark + "$2"},
	{regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*):(//)`), "$1:" + breakMark + "$2"},
	{regexp.MustCompile(`(?i)\b(www)\.`), "$1" + breakMark + "."},
}

// breakMark stands for a zwsp while the patterns are broken, so that no
// pattern matches the entity's own "#8203".
const breakMark = "\uE000"

// escapeMarkdown escapes s for markdown inline text (see mdReplacer and
// autolinks); s must already be one safe line.
func escapeMarkdown(s string) string {
	for _, a := range autolinks {
		s = a.re.ReplaceAllString(s, a.with)
	}
	return strings.ReplaceAll(mdReplacer.Replace(s), breakMark, zwsp)
}

// Markdown makes text from outside llmgate safe to put inline in markdown:
// Line first (secrets masked, controls removed, one line), then every
// character markdown or HTML would act on escaped and every reference or
// autolink broken, so it renders as the literal text and links nothing.
func Markdown(s string) string { return escapeMarkdown(Line(s)) }

// CodeBlock puts multi-line text from outside llmgate in a fenced code
// block whose fence is longer than any backtick run inside it, so the text
// cannot close the block; inside a fence GitHub renders no HTML, no links
// and no mentions. The text goes through Text first.
func CodeBlock(s string) string {
	s = Text(s)
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "text\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// DefuseMarkers escapes every llmgate comment marker in s, for markdown that
// llmgate assembled from parts it did not all write; the caller adds its own
// marker afterwards.
func DefuseMarkers(s string) string {
	return strings.ReplaceAll(s, MarkerPrefix, "&lt;!-- llmgate:")
}

// Code puts one line of text from outside llmgate in an inline code span
// (Line first), with delimiters longer than any backtick run inside, so it
// renders literally: no HTML, links or mentions. Pipes are escaped for
// tables, where GitHub honours the escape even in code.
func Code(s string) string {
	s = strings.ReplaceAll(Line(s), "|", `\|`)
	delim := "`"
	for strings.Contains(s, delim) {
		delim += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return delim + s + delim
}
