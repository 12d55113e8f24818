package ghaction

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// go-githubactions v1.3.0 writes every output with one fixed heredoc
// delimiter, so a value holding that delimiter on a line of its own (a
// results path named after it) ends the value early and writes outputs of
// its choosing. GitHub's own toolkit draws a new delimiter for every value
// and refuses a value that holds it; llmgate writes outputs the same way.

// outputDelimiter draws a fresh heredoc delimiter for one output:
// "ghadelimiter_" and 128 random bits, as GitHub's toolkit does.
func outputDelimiter(random io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("draw a delimiter: %w", err)
	}
	return "ghadelimiter_" + hex.EncodeToString(b[:]), nil
}

// outputEntry is the GITHUB_OUTPUT entry "name<<DELIM\nvalue\nDELIM\n",
// refusing a name or value that holds the delimiter (or a name on more than
// one line), since the runner would then read the entry otherwise.
func outputEntry(name, value, delim string) (string, error) {
	switch {
	case name == "" || strings.ContainsAny(name, "\r\n") || strings.Contains(name, "<<"):
		return "", fmt.Errorf("output name %q: want one line without <<", name)
	case strings.Contains(name, delim) || strings.Contains(value, delim):
		return "", fmt.Errorf("the value holds its heredoc delimiter %s; refused", delim)
	}
	return name + "<<" + delim + "\n" + value + "\n" + delim + "\n", nil
}

// appendOutput appends one output entry to the file at path.
func appendOutput(path, name, value string, random io.Reader) error {
	delim, err := outputDelimiter(random)
	if err != nil {
		return err
	}
	entry, err := outputEntry(name, value, delim)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, entry); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// random is where delimiters come from; tests replace it.
var random io.Reader = rand.Reader
