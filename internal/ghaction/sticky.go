package ghaction

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/llmgate/llmgate/untrusted"
)

// MaxCommentChars is GitHub's limit on a comment body, in characters.
const MaxCommentChars = 65536

// Marker is the hidden HTML comment that identifies llmgate's comment for
// suite on a pull request, so every push updates one comment instead of
// adding another. It is injective (two suites never share a comment) and
// inert (no name ends the comment early): the name is percent-encoded but
// for letters, digits, '.', '_' and a '-' that does not follow another, so
// the marker never holds "--", a blank or ">". A name of only those
// characters reads as itself, as markers did before they were encoded.
func Marker(suite string) string {
	var b strings.Builder
	b.WriteString(untrusted.MarkerPrefix)
	last := byte(':') // the last byte written
	for i := 0; i < len(suite); i++ {
		c := suite[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-' && last != '-':
			b.WriteByte(c)
			last = c
		default:
			fmt.Fprintf(&b, "%%%02X", c)
			last = '0' // a hex digit
		}
	}
	b.WriteString(" -->")
	return b.String()
}

// legacyMarker is the marker llmgate wrote before Marker was injective,
// when it differs from Marker(suite) and the old form was not mangled
// (a "--" folded, lines joined), so its comment can only be this suite's
// or that of a name no one gives a suite ("a%20b" for "a b"): UpsertSticky
// edits such a comment, which then gets the new marker.
func legacyMarker(suite string) string {
	if suite != oneLine(suite) || strings.Contains(suite, "--") {
		return ""
	}
	if old := untrusted.MarkerPrefix + suite + " -->"; old != Marker(suite) {
		return old
	}
	return ""
}

// commentLen counts s as GitHub does, conservatively: in UTF-16 code units,
// so a character outside the BMP counts twice.
func commentLen(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// TruncateBody cuts markdown so that it fits in limit characters (as
// commentLen counts them), at a line boundary, closing an open code fence or
// <details> block and ending with a note that says what was cut and where the
// full report is. It returns body unchanged and false when it already fits.
func TruncateBody(body string, limit int) (string, bool) {
	if commentLen(body) <= limit {
		return body, false
	}
	total := commentLen(body)
	// Reserve room for the closing tags and the note; 400 is ample for both.
	const reserve = 400
	budget := limit - reserve
	if budget < 0 {
		budget = 0
	}
	cut, n := 0, 0
	for i, r := range body {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if n+w > budget {
			break
		}
		n += w
		cut = i + utf8.RuneLen(r)
	}
	kept := body[:cut]
	if i := strings.LastIndexByte(kept, '\n'); i > 0 {
		kept = kept[:i]
	}
	var b strings.Builder
	b.WriteString(kept)
	b.WriteString("\n")
	if fence := openFence(kept); fence != "" {
		b.WriteString(fence + "\n")
	}
	for range strings.Count(kept, "<details") - strings.Count(kept, "</details>") {
		b.WriteString("</details>\n")
	}
	fmt.Fprintf(&b, "\n> [!NOTE]\n> This report was cut to %d of its %d characters to fit GitHub's comment limit (%d). The full report is in the job's step summary and in the results file.\n",
		commentLen(kept), total, MaxCommentChars)
	out := b.String()
	if commentLen(out) > limit { // a pathological limit below the reserve
		out = string([]rune(out)[:max(limit/2, 0)])
	}
	return out, true
}

// openFence is the fence that s ends inside ("" when none): a run of three
// or more backticks or tildes at the start of a line (after at most three
// blanks), as CommonMark has it. Only a run of the same character at least
// as long, with nothing but blanks after it, closes the block, so the
// returned opening run is also what closes it.
func openFence(s string) string {
	open := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 || t == "" || (t[0] != '`' && t[0] != '~') {
			continue
		}
		run := t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		switch {
		case len(run) < 3:
		case open == "":
			if run[0] == '`' && strings.Contains(t[len(run):], "`") {
				continue // a backtick fence's info string holds no backtick
			}
			open = run
		case run[0] == open[0] && len(run) >= len(open) && strings.TrimSpace(t[len(run):]) == "":
			open = ""
		}
	}
	return open
}

// StickyResult says what UpsertSticky did.
type StickyResult struct {
	// Comment is the comment as GitHub returned it.
	Comment *Comment
	// Created is true for a new comment, false for an updated one.
	Created bool
	// Truncated is true when the body was cut to fit MaxCommentChars.
	Truncated bool
	// Shortened is true when GitHub still refused the body (422) and a short
	// pointer to the step summary was posted in its place.
	Shortened bool
}

// UpsertSticky creates or updates llmgate's one comment for suite on pull
// request number: the body is Marker(suite) followed by markdown, cut to fit
// GitHub's limit. If GitHub answers 422 anyway, it posts a short comment
// that points at fallbackURL (the run's page) and says why, and returns the
// 422 only if that fails too.
func (c *Client) UpsertSticky(ctx context.Context, repo Repo, number int, suite, markdown, fallbackURL string) (*StickyResult, error) {
	marker := Marker(suite)
	// Only llmgate writes a marker: one inside the report (quoted from a
	// server, say) would let another suite's run find and edit this comment.
	markdown = untrusted.DefuseMarkers(untrusted.Mask(markdown))
	body, truncated := TruncateBody(marker+"\n"+markdown, MaxCommentChars)
	author, err := c.Identity(ctx)
	if err != nil {
		return nil, fmt.Errorf("who does this token post as: %w", err)
	}
	existing, err := c.FindComment(ctx, repo, number, marker, author)
	if old := legacyMarker(suite); err == nil && existing == nil && old != "" {
		existing, err = c.FindComment(ctx, repo, number, old, author)
	}
	if err != nil {
		return nil, fmt.Errorf("find llmgate's comment on %s#%d: %w", repo, number, err)
	}
	post := func(body string) (*Comment, error) {
		if existing != nil {
			return c.UpdateComment(ctx, repo, existing.ID, body)
		}
		return c.CreateComment(ctx, repo, number, body)
	}
	res := &StickyResult{Created: existing == nil, Truncated: truncated}
	res.Comment, err = post(body)
	if IsUnprocessable(err) {
		short := fmt.Sprintf("%s\n**llmgate: %s** — the report could not be posted as a comment (GitHub answered %s).", marker, untrusted.Markdown(suite), untrusted.Markdown(shortError(err)))
		if fallbackURL != "" {
			short += fmt.Sprintf(" See the step summary of [the workflow run](%s).", fallbackURL)
		}
		short, _ = TruncateBody(short, MaxCommentChars)
		cm, err2 := post(short)
		if err2 != nil {
			return nil, fmt.Errorf("post llmgate's comment on %s#%d: %w (and the short form: %v)", repo, number, err, err2)
		}
		res.Comment, res.Shortened = cm, true
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("post llmgate's comment on %s#%d: %w", repo, number, err)
	}
	return res, nil
}
