package docs_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/llmgate/llmgate/internal/suite"
	"github.com/llmgate/llmgate/results"
)

// root is the repository root, seen from this package's directory.
const root = ".."

// block is one fenced code block of a markdown page.
type block struct {
	file string // path relative to the repository root
	line int    // line of the opening fence, 1-based
	lang string // the fence's info string: "hcl", "sh", "text", ...
	body string // the lines between the fences, the fence's indentation removed
}

func (b block) String() string { return fmt.Sprintf("%s:%d (```%s)", b.file, b.line, b.lang) }

// pages are the documents the tests read: the README and every page under docs/.
func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("docs/ holds %d pages, want at least 8", len(files))
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// blocks returns every fenced block of every page. A fence may be indented
// (inside a list item); its body loses that indentation. An unclosed fence
// fails the test.
func blocks(t *testing.T) []block {
	t.Helper()
	var all []block
	for _, path := range pages(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		var cur *block
		var indent string
		var body strings.Builder
		sc := bufio.NewScanner(bytes.NewReader(src))
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			trimmed := strings.TrimLeft(line, " ")
			if cur == nil {
				if strings.HasPrefix(trimmed, "```") {
					indent = line[:len(line)-len(trimmed)]
					cur = &block{file: rel, line: n, lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
					body.Reset()
				}
				continue
			}
			if strings.TrimSpace(line) == "```" {
				cur.body = body.String()
				all = append(all, *cur)
				cur = nil
				continue
			}
			body.WriteString(strings.TrimPrefix(line, indent))
			body.WriteByte('\n')
		}
		if cur != nil {
			t.Errorf("%s: the fence is never closed", cur)
		}
	}
	return all
}

// TestFencesNameTheirLanguage keeps fragments honest: a block without a
// language would escape the checks below, so every fence names one.
func TestFencesNameTheirLanguage(t *testing.T) {
	for _, b := range blocks(t) {
		if b.lang == "" {
			t.Errorf("%s: name the block's language (hcl for a whole suite, text for a fragment or output)", b)
		}
	}
}

// TestHCLBlocksValidate loads every ```hcl block as a suite file: each must
// be a complete suite that `llmgate validate` accepts. Fragments are fenced
// as ```text.
func TestHCLBlocksValidate(t *testing.T) {
	n := 0
	for _, b := range blocks(t) {
		if b.lang != "hcl" {
			continue
		}
		n++
		path := filepath.Join(t.TempDir(), "suite.hcl")
		if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
		if diags.HasErrors() {
			t.Errorf("%s does not validate: %v", b, diags.Errs())
		}
	}
	if n < 3 {
		t.Errorf("found %d ```hcl blocks, want at least 3: did the pages move?", n)
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// llmgate builds the binary once for all the tests of this package.
func llmgate(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmgate-docs-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "llmgate")
		// Built as `make build` builds it (static, no race detector), so a
		// tree that was built once compiles nothing again here.
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binary, "./cmd/llmgate")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// commands returns the shell commands of every ```sh block: continuation
// lines joined, comments and blank lines dropped.
func commands(t *testing.T) []command {
	t.Helper()
	var cmds []command
	for _, b := range blocks(t) {
		if b.lang != "sh" {
			continue
		}
		var joined string
		for i, line := range strings.Split(b.body, "\n") {
			if cut, ok := strings.CutSuffix(strings.TrimRight(line, " "), "\\"); ok {
				joined += cut + " "
				continue
			}
			full := stripComment(joined + line)
			joined = ""
			if full != "" {
				cmds = append(cmds, command{where: fmt.Sprintf("%s:%d", b.file, b.line+1+i), args: strings.Fields(full)})
			}
		}
	}
	return cmds
}

// command is one line of a shell example, split into words.
type command struct {
	where string
	args  []string
}

// stripComment drops a trailing "# ..." comment (preceded by a blank) and
// surrounding space. The examples quote no '#'.
func stripComment(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// runnable reports whether an example can run here, without a GPU, Docker,
// network or files the docs only imagine: validate, help and version.
func runnable(args []string) bool {
	if len(args) < 2 || args[0] != "llmgate" {
		return false
	}
	switch args[1] {
	case "validate", "help", "version":
		return true
	}
	return false
}

// expand replaces an argument holding a glob with the files it matches,
// as the shell would, relative to the repository root.
func expand(t *testing.T, args []string) []string {
	var out []string
	for _, a := range args {
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(filepath.Join(root, a))
			if err != nil || len(m) == 0 {
				t.Fatalf("%s matches nothing", a)
			}
			for _, f := range m {
				rel, _ := filepath.Rel(root, f)
				out = append(out, rel)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// exec runs the binary with args in the repository root and returns its
// exit code and combined output.
func execute(t *testing.T, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, llmgate(t), args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("llmgate %s: still running after %s", strings.Join(args, " "), timeout)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("llmgate %s: %v", strings.Join(args, " "), err)
	}
	return 0, string(out)
}

// TestShellExamplesRun runs every `llmgate validate`, `llmgate help` and
// `llmgate version` line of the pages' ```sh blocks with the binary built
// from this tree: each must exit 0 and print something.
func TestShellExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shell example of the docs against the simulator (about 25 s): full run only")
	}
	llmgate(t) // build before the parallel subtests
	n := 0
	for _, c := range commands(t) {
		if !runnable(c.args) {
			continue
		}
		n++
		t.Run(c.where, func(t *testing.T) {
			t.Parallel()
			args := expand(t, c.args[1:])
			code, out := execute(t, 30*time.Second, args...)
			if code != 0 || strings.TrimSpace(out) == "" {
				t.Errorf("%s exited %d:\n%s", strings.Join(c.args, " "), code, out)
			}
		})
	}
	if n < 8 {
		t.Errorf("ran %d shell examples, want at least 8: did the pages move?", n)
	}
}

// onSimulator reports whether an example is `llmgate run` of a catalog
// suite sent to the simulator (--var simulate=true): those run here.
func onSimulator(args []string) bool {
	if len(args) < 3 || args[0] != "llmgate" || args[1] != "run" {
		return false
	}
	for i := 2; i+1 < len(args); i++ {
		if args[i] == "--var" && args[i+1] == "simulate=true" {
			return true
		}
	}
	return false
}

// withOutput returns args with the results file set to out: an existing
// -o value is replaced, else -o out is appended.
func withOutput(args []string, out string) []string {
	res := append([]string(nil), args...)
	for i := 0; i+1 < len(res); i++ {
		if res[i] == "-o" {
			res[i+1] = out
			return res
		}
	}
	return append(res, "-o", out)
}

// TestSimulatorExamplesRun runs every distinct `llmgate run ... --var
// simulate=true` example (the catalog on the simulator, scaled down as the
// docs say), writing its results into a temporary directory. Every run must
// complete; one the load generator marked invalid (it could not keep its
// schedule on a busy machine) exits 3 and is logged, any other failure
// fails. The report of the results must render, and results that were
// judged must pass when compared with themselves.
func TestSimulatorExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs suites on the simulator")
	}
	seen := map[string]bool{}
	for _, c := range commands(t) {
		if !onSimulator(c.args) {
			continue
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "results.json")
		args := withOutput(c.args[1:], out)
		key := strings.Join(withOutput(c.args[1:], "OUT"), " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		code, log := execute(t, 2*time.Minute, args...)
		if code != 0 && code != 3 {
			t.Errorf("%s: %s exited %d:\n%s", c.where, strings.Join(c.args, " "), code, log)
			continue
		}
		f, err := results.ReadFile(out)
		if err != nil {
			t.Errorf("%s: %v\n%s", c.where, err, log)
			continue
		}
		judged := true
		for _, r := range f.Runs {
			switch {
			case r.Status == results.StatusInvalid:
				// The load generator could not keep its plan on a busy
				// machine: the run completed but is not judged (exit 3).
				t.Logf("%s: run %s invalid: %s", c.where, r.Name, strings.Join(r.InvalidReasons, "; "))
				judged = false
			case r.Status != results.StatusOK:
				t.Errorf("%s: run %s: status %s: %s", c.where, r.Name, r.Status, r.Error)
			}
			if r.Summary.Requests.Completed == 0 {
				t.Errorf("%s: run %s: no request completed", c.where, r.Name)
			}
		}
		if code == 3 && judged {
			t.Errorf("%s: exit 3 with every run ok:\n%s", c.where, log)
		}
		html := filepath.Join(dir, "report.html")
		if code, log := execute(t, time.Minute, "report", out, "-o", html); code != 0 {
			t.Errorf("%s: report exited %d:\n%s", c.where, code, log)
		} else if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s: the report has no chart (%v)", c.where, err)
		}
		if code, log := execute(t, time.Minute, "compare", out, out); judged && (code != 0 || !strings.Contains(log, "no regression")) {
			t.Errorf("%s: the results compared with themselves exited %d:\n%s", c.where, code, log)
		}
	}
	if len(seen) == 0 {
		t.Error("no `llmgate run ... --var simulate=true` example found: did the pages move?")
	}
}

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped (letters, digits, blanks, '-' and '_' stay), blanks to '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors returns the anchors of a page's headings (outside code blocks).
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	fence := false
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fence = !fence
			continue
		}
		if !fence && strings.HasPrefix(line, "#") {
			set[slug(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	return set
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve checks every relative link of the pages: the file must
// exist, and an anchor must name one of its headings.
func TestLinksResolve(t *testing.T) {
	n := 0
	for _, page := range pages(t) {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(string(src), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", rel, target, err)
				continue
			}
			if anchor != "" && !anchors(t, path)[anchor] {
				t.Errorf("%s: link %s: no heading has the anchor #%s", rel, target, anchor)
			}
		}
	}
	if n < 20 {
		t.Errorf("checked %d relative links, want at least 20", n)
	}
}

// actionInputs reads the input names of action.yml: the keys indented by
// two spaces under its top-level "inputs:".
func actionInputs(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]bool{}
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "inputs:"):
			in = true
		case line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "#"):
			in = false
		case in && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			if name, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
				inputs[name] = true
			}
		}
	}
	if len(inputs) < 5 {
		t.Fatalf("read %d inputs from action.yml", len(inputs))
	}
	return inputs
}

// indentOf is the number of leading blanks of line.
func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// TestWorkflowsUseActionInputs checks every step of the ```yaml examples
// that uses the llmgate action: each key under its `with:` must be an
// input action.yml declares.
func TestWorkflowsUseActionInputs(t *testing.T) {
	inputs := actionInputs(t)
	steps := 0
	for _, b := range blocks(t) {
		if b.lang != "yaml" {
			continue
		}
		lines := strings.Split(b.body, "\n")
		for i, line := range lines {
			if !strings.Contains(line, "uses: llmgate/llmgate@") {
				continue
			}
			steps++
			// The step's keys sit at the indentation of "uses:" itself.
			stepIndent := indentOf(line) + len(line[indentOf(line):]) - len(strings.TrimPrefix(line[indentOf(line):], "- "))
			for j := i + 1; j < len(lines) && (lines[j] == "" || indentOf(lines[j]) >= stepIndent); j++ {
				if indentOf(lines[j]) != stepIndent || strings.TrimSpace(lines[j]) != "with:" {
					continue
				}
				for k := j + 1; k < len(lines) && indentOf(lines[k]) > stepIndent; k++ {
					if indentOf(lines[k]) != stepIndent+2 {
						continue
					}
					key, _, _ := strings.Cut(strings.TrimSpace(lines[k]), ":")
					if !inputs[key] {
						t.Errorf("%s line %d: the action has no input %q", b, k+1, key)
					}
				}
			}
		}
	}
	if steps < 5 {
		t.Errorf("found %d steps using the action, want at least 5", steps)
	}
}

// TestStructuredSchemaAsDocumented checks docs/running.md says what
// validate does with a structured workload without a schema: it refuses it
// (the docs once promised a default schema).
func TestStructuredSchemaAsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "running.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "| `structured` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/running.md has no `structured` row in its workload table: did it move?")
	}
	if !strings.Contains(row, "needs `schema`") || !strings.Contains(row, "`validate` refuses one without") || strings.Contains(row, "default schema") {
		t.Errorf("the structured row does not say a schema is required:\n%s", row)
	}
	suiteFile := func(schema string) string {
		return "scenario \"s\" {\n  load {\n    concurrency = 1\n    requests = 1\n  }\n  workload {\n    kind = \"structured\"\n" + schema + "  }\n}\n"
	}
	for _, tt := range []struct {
		schema  string
		refused bool
	}{
		{"", true},
		{"    schema = { type = \"object\" }\n", false},
	} {
		path := filepath.Join(t.TempDir(), "suite.hcl")
		if err := os.WriteFile(path, []byte(suiteFile(tt.schema)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := suite.Load(path, suite.Options{Getenv: func(string) string { return "" }})
		refused := false
		for _, d := range diags.Errs() {
			refused = refused || strings.Contains(d.Error(), "Structured workload without a schema")
		}
		if refused != tt.refused || (!tt.refused && diags.HasErrors()) {
			t.Errorf("schema %q: refused %v, want %v (%v)", tt.schema, refused, tt.refused, diags)
		}
	}
}
