package untrusted

import (
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Masked replaces a secret in everything llmgate writes.
const Masked = "***"

// MinSecretLen is the shortest value a Masker hides. Shorter values ("1",
// "no") are configuration rather than secrets, and hiding them would
// garble every number in the output.
const MinSecretLen = 4

// tokenShapes match credentials by their look, known or not: Hugging Face
// and OpenAI-style keys, GitHub tokens, and bearer tokens in echoed headers.
// The prefix (group 1) is kept so the reader sees what was hidden.
var tokenShapes = regexp.MustCompile(`(\bhf_|\bsk-(?:proj-)?|\bgh[pousr]_|\bgithub_pat_)[A-Za-z0-9_\-]{16,}|(?i:(\bbearer\s+))[A-Za-z0-9._~+/=\-]{8,}`)

// Masker hides known secret values and token-shaped strings. It is safe for
// concurrent use; values only ever get added.
type Masker struct {
	mu     sync.RWMutex
	values []string // longest first, so a secret that contains another is hidden whole
	seen   map[string]bool
	onAdd  func(secret string)
}

// NewMasker returns a Masker that knows no values yet (it still hides
// token shapes).
func NewMasker() *Masker { return &Masker{seen: map[string]bool{}} }

// OnAdd sets f to be called, once, with each value added from now on: under
// GitHub Actions it registers the value with ::add-mask:: before llmgate
// prints anything that could hold it.
func (m *Masker) OnAdd(f func(secret string)) {
	m.mu.Lock()
	m.onAdd = f
	m.mu.Unlock()
}

// Add makes m hide each secret from now on, in every form it can be
// published in (raw, JSON, markdown, HTML and URL escaped). Values that
// cannot be credentials are ignored: shorter than MinSecretLen after
// trimming spaces, a boolean or null word ("true"), or a short number.
// Callers add secrets only, never every value a suite reads: a masked
// "true" would break every file and log it appears in.
func (m *Masker) Add(values ...string) {
	m.mu.Lock()
	var added []string
	for _, v := range values {
		if notSecret(v) || m.seen[v] {
			continue
		}
		m.seen[v] = true
		added = append(added, v)
		for _, form := range forms(v) {
			if !containsString(m.values, form) {
				m.values = append(m.values, form)
			}
		}
	}
	sort.SliceStable(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
	onAdd := m.onAdd
	m.mu.Unlock()
	if onAdd != nil {
		for _, v := range added {
			onAdd(v)
		}
	}
}

// jsonForms are v as it appears inside a JSON string, with and without
// HTML escaping, when that differs from v.
func jsonForms(v string) []string {
	var out []string
	plain, _ := json.Marshal(v)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	for _, f := range []string{string(plain), strings.TrimSpace(b.String())} {
		f = f[1 : len(f)-1]
		if f != v && !containsString(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Mask returns s with every known value and every token shape replaced by
// Masked. A nil Masker hides token shapes only.
func (m *Masker) Mask(s string) string {
	if m != nil {
		m.mu.RLock()
		for _, v := range m.values {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Masked)
			}
		}
		m.mu.RUnlock()
	}
	return tokenShapes.ReplaceAllString(s, "$1$2"+Masked)
}

// Writer returns a writer that masks each Write before passing it to w. A
// secret split across two Writes is not recognised; llmgate writes whole
// lines.
func (m *Masker) Writer(w io.Writer) io.Writer { return &maskWriter{m: m, w: w} }

type maskWriter struct {
	m *Masker
	w io.Writer
}

func (mw *maskWriter) Write(p []byte) (int, error) {
	masked := mw.m.Mask(string(p))
	if _, err := io.WriteString(mw.w, masked); err != nil {
		return 0, err
	}
	return len(p), nil
}

// current is the process's masker, installed by Use.
var current atomic.Pointer[Masker]

// Use installs m as the process's masker and returns a function that puts
// the previous one back.
func Use(m *Masker) (restore func()) {
	prev := current.Swap(m)
	return func() { current.Store(prev) }
}

// Current is the installed masker, or nil.
func Current() *Masker { return current.Load() }

// Mask hides secrets in s with the installed masker (token shapes only when
// none is installed).
func Mask(s string) string { return current.Load().Mask(s) }
