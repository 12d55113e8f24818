package untrusted

import (
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// secretWords are the words of an environment variable's name that say its
// value is a secret: HF_TOKEN, OPENAI_API_KEY, DB_PASSWORD, AWS_SECRET_ACCESS_KEY.
var secretWords = []string{"SECRET", "TOKEN", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS"}

// secretWordsExact are words that say secret only on their own
// (GITHUB_PAT, DB_PASS, not COMPAT or BYPASS).
var secretWordsExact = []string{"PAT", "PASS"}

// SecretName reports whether an environment variable called name holds a
// secret by its name: one of its words (split at anything but letters and
// digits) is or ends with SECRET, TOKEN, KEY, PASSWORD, PASSWD or
// CREDENTIAL(S), or is PAT or PASS (not PWD, the shell's directory), in any case: HF_TOKEN,
// OPENAI_API_KEY, ghToken, APIKEY, GITHUB_PAT. CamelCase splits too
// (myApiKey).
func SecretName(name string) bool {
	for _, w := range nameWords(name) {
		if containsString(secretWordsExact, w) {
			return true
		}
		for _, s := range secretWords {
			if strings.HasSuffix(w, s) {
				return true
			}
		}
	}
	return false
}

// nameWords splits a variable's name into upper-cased words at every
// character that is not a letter or digit and where a lower-case letter
// meets an upper-case one.
func nameWords(name string) []string {
	var words []string
	var cur strings.Builder
	prevLower := false
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur.WriteRune(unicode.ToUpper(r))
		prevLower = unicode.IsLower(r)
	}
	flush()
	return words
}

// notSecret reports whether v cannot be a credential however it was
// named: a boolean or null word, or a short number. Masking "true" would
// turn every JSON true into *** and blank every "true" in the job log.
func notSecret(v string) bool {
	t := strings.TrimSpace(v)
	switch strings.ToLower(t) {
	case "true", "false", "null", "none", "nil", "yes", "no", "on", "off":
		return true
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil && len(t) < 12 {
		return true
	}
	return len(t) < MinSecretLen
}

// forms are the ways a secret can be written where llmgate publishes it:
// raw, inside a JSON string (with and without HTML escaping), escaped for
// markdown (as Markdown and Code escape it), escaped for HTML (as
// html/template and html.EscapeString do) and URL-encoded (query and
// path). The masker looks for every one of them.
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		if f != "" && !containsString(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range jsonForms(v) {
		add(f)
	}
	add(escapeMarkdown(v))
	add(mdReplacer.Replace(v))
	add(strings.ReplaceAll(v, "|", `\|`))
	add(template.HTMLEscapeString(v))
	add(html.EscapeString(v))
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	return out
}
