package untrusted

import (
	"encoding/json"
	"html"
	"html/template"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"HF_TOKEN": true, "GITHUB_TOKEN": true, "INPUT_GITHUB-TOKEN": true, "OPENAI_API_KEY": true, "AWS_SECRET_ACCESS_KEY": true,
		"DB_PASSWORD": true, "MYSQL_PWD_PASSWD": true, "GOOGLE_CREDENTIALS": true, "APIKEY": true, "ghToken": true, "myApiKey": true,
		"GITHUB_PAT": true, "DB_PASS": true, "hf_token": true,
		"CI": false, "PWD": false, "OLDPWD": false, "PATH": false, "COMPAT_MODE": false, "BYPASS": false, "TOX_TESTENV_PASSENV": false,
		"VLLM_LOGGING_LEVEL": false, "KEYBOARD": false, "HOME": false, "TOKENIZERS_PARALLELISM": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// The probe: a server env value "true" (and env("CI")) was added as a
// secret: every JSON true became ***, and ::add-mask::true blanked every
// "true" in the job log. Such values are never secrets.
func TestValuesThatCannotBeSecretsAreNotMasked(t *testing.T) {
	m := NewMasker()
	var registered []string
	m.OnAdd(func(s string) { registered = append(registered, s) })
	m.Add("true", "False", " null ", "8000", "0.5", "yes", "abc", "1234567890123", "s3cr3t-value")
	if want := []string{"1234567890123", "s3cr3t-value"}; !reflect.DeepEqual(registered, want) {
		t.Errorf("registered %q, want %q", registered, want)
	}
	if got := m.Mask(`{"ok":true,"port":8000,"x":"yes"}`); got != `{"ok":true,"port":8000,"x":"yes"}` {
		t.Errorf("Mask changed configuration values: %s", got)
	}
}

// The probe: a secret with <, | or > in it appeared escaped in the step
// summary and the comment (Zx9&lt;Q+w\|Lm&gt;…), past a masker that knew
// only its raw and JSON forms. Every escaped form is masked now.
func TestEveryFormOfASecretIsMasked(t *testing.T) {
	secret := `Zx9<Q+w|Lm>"a b&c'd/e@f`
	m := NewMasker()
	m.Add(secret)
	js, _ := json.Marshal(secret)
	for name, form := range map[string]string{
		"raw":           secret,
		"json":          string(js[1 : len(js)-1]),
		"markdown":      mdReplacer.Replace(secret),
		"table code":    strings.ReplaceAll(secret, "|", `\|`),
		"html/template": template.HTMLEscapeString(secret),
		"html":          html.EscapeString(secret),
		"query":         url.QueryEscape(secret),
		"path":          url.PathEscape(secret),
	} {
		if got := m.Mask("before " + form + " after"); got != "before *** after" {
			t.Errorf("%s form %q: Mask = %q", name, form, got)
		}
	}
	// and the sinks mask before they escape, so what they write holds none
	defer Use(m)()
	for name, sink := range map[string]func(string) string{"Markdown": Markdown, "Code": Code, "Line": Line, "CodeBlock": CodeBlock} {
		if out := sink("x " + secret); strings.Contains(out, "Zx9") {
			t.Errorf("%s wrote %q", name, out)
		}
	}
}

// Masking a JSON document never changes its structure, whatever the
// secrets: only string values change, keys, numbers and literals never.
func TestMaskJSONKeepsTheStructure(t *testing.T) {
	m := NewMasker()
	// secrets that are also JSON syntax, keys and literal text
	m.Add(`"runs"`, "name", "status", `","`, `\"`, "0123456789abc", "true-secret-token")
	doc := map[string]any{
		"version": "1.1",
		"runs": []any{map[string]any{
			"name": "name of the run", "status": "ok", "passed": true, "n": 42.5,
			"error": `server said "runs" and true-secret-token, and \"`, "params": map[string]any{"name": "x", "k": `","`},
		}},
		"empty": "", "nil": nil, "html": "<b>&</b>",
	}
	raw, _ := json.MarshalIndent(doc, "", "  ")
	masked := m.MaskJSON(raw)
	var before, after any
	if err := json.Unmarshal(raw, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(masked, &after); err != nil {
		t.Fatalf("masked document does not parse: %v\n%s", err, masked)
	}
	if !sameShape(before, after) {
		t.Errorf("masking changed the structure:\n%s\n->\n%s", raw, masked)
	}
	got := after.(map[string]any)["runs"].([]any)[0].(map[string]any)
	if got["name"] != "*** of the run" || got["passed"] != true || got["n"] != 42.5 || strings.Contains(got["error"].(string), "true-secret-token") {
		t.Errorf("masked run = %v", got)
	}
	if _, ok := got["name"]; !ok {
		t.Error("a key was masked")
	}
	// nothing to mask: the same bytes
	if plain := []byte(`{"a":"b","c":[1,true,null]}`); string(m.MaskJSON(plain)) != string(plain) {
		t.Errorf("MaskJSON changed %s", plain)
	}
}

// sameShape reports whether a and b have the same keys, kinds and
// non-string values throughout.
func sameShape(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameShape(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameShape(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		_, ok := b.(string)
		return ok
	default:
		return reflect.DeepEqual(a, b)
	}
}
