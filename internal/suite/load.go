package suite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// Load reads, validates and expands the suite in filename. Every problem
// in the file is reported in one pass, each with its source range. When the
// diagnostics hold an error the returned Suite carries only Filename and
// Files (so the diagnostics can be rendered with snippets) and must not be
// run; otherwise it is complete, with each scenario's sweep expanded.
func Load(filename string, opts Options) (*Suite, hcl.Diagnostics) {
	src, err := readSuiteFile(filename)
	if err != nil {
		return &Suite{Filename: filename, Files: map[string]*hcl.File{}}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read suite file",
			Detail:   fmt.Sprintf("llmgate could not read %s: %v.", filename, err),
		}}
	}
	return loadSource(filename, src, opts)
}

// readSuiteFile reads at most MaxSuiteBytes+1 bytes of filename, so that
// a huge file (or /dev/zero) is refused by checkLimits instead of read.
func readSuiteFile(filename string) ([]byte, error) {
	f, err := os.Open(filename)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxSuiteBytes+1))
}

// loader holds the state of one Load: the file, the inputs, and every
// diagnostic found so far.
type loader struct {
	filename string
	// files is where the suite may read files (file(), datasets).
	files *fileRoot
	// traces holds the trace files read so far, by format and path.
	traces map[string]traceRead
	// budget bounds what evaluation builds and how long it takes.
	budget *evalBudget
	opts   Options
	getenv func(string) string
	// secrets collects the secrets the suite read, for Suite.Secrets.
	secrets  []string
	diags    hcl.Diagnostics
	varNames []string
	ctx      *hcl.EvalContext
	suite    *Suite
	// defaultsBody is the defaults block's body (nil without one): its
	// attributes are evaluated per scenario and may use sweep keys.
	defaultsBody hcl.Body
	// implicit is the simulator used when a suite declares no target at all.
	implicit *plan.Target
	// invalidTargets describes target blocks whose name made them unusable.
	invalidTargets []string
}

// loadSource is Load on bytes already read; the fuzz test calls it directly.
func loadSource(filename string, src []byte, opts Options) (*Suite, hcl.Diagnostics) {
	src = normalizeNewlines(src)
	if diags := checkLimits(filename, src); diags.HasErrors() {
		file := &hcl.File{Bytes: src}
		if len(src) > MaxSuiteBytes {
			file.Bytes = nil // no snippet from a file this large
		}
		return &Suite{Filename: filename, Files: map[string]*hcl.File{filename: file}}, diags
	}
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	skeleton := &Suite{Filename: filename, Files: map[string]*hcl.File{filename: file}}
	if diags.HasErrors() {
		return skeleton, capDiagnostics(sortDiags(explainNumberUnits(explainSyntax(diags), skeleton.Files)))
	}
	if body, ok := file.Body.(*hclsyntax.Body); ok {
		guardExpressions(body)
	}
	l := &loader{
		filename: filename,
		files:    newFileRoot(filename),
		budget:   newEvalBudget(),
		opts:     opts,
		getenv:   opts.getenv(),
		diags:    diags,
		suite: &Suite{
			Filename: filename,
			Files:    skeleton.Files,
			Targets:  map[string]*plan.Target{},
		},
	}
	l.budget.start()
	defer l.budget.stop()
	content, d := file.Body.Content(rootSchema)
	l.diags = append(l.diags, d...)
	byType := content.Blocks.ByType()

	vars := l.resolveVariables(byType["variable"], l.undeclaredVarsPolicy(byType["suite"]))
	l.ctx = newEvalContext(l.files, vars, l.envFunc, l.budget)
	l.decodeSuiteBlock(byType["suite"])
	l.decodeTargets(byType["server"], byType["endpoint"], byType["simulator"])
	defs := l.decodeDefaults(byType["defaults"])
	l.decodeScenarios(byType["scenario"], defs)
	l.decodeGate(byType["gate"])

	diags = capDiagnostics(sortDiags(dropConsequences(dedupe(explainNumberUnits(explainBudget(l.diags), l.suite.Files)))))
	skeleton.Secrets = l.collectSecrets()
	if diags.HasErrors() {
		return skeleton, diags
	}
	l.suite.Secrets = skeleton.Secrets
	return l.suite, diags
}

// envFunc is what env() reads: the environment, except the job's GitHub
// and Actions tokens, which nothing in a suite needs and which a suite
// could send to any endpoint (forbiddenEnv). A value whose variable's name
// says it is a secret (untrusted.SecretName: HF_TOKEN, OPENAI_API_KEY) is
// recorded for masking; other values are not, since masking every value a
// suite reads ("true" from env("CI")) would break every file and log.
func (l *loader) envFunc(name string) (string, error) {
	if why := forbiddenEnv(name); why != "" {
		return "", errors.New(why)
	}
	v := l.getenv(name)
	if v != "" && untrusted.SecretName(name) {
		l.secrets = append(l.secrets, v)
	}
	return v, nil
}

// forbiddenEnv says why env(name) is refused, or "" when it is not: the
// workflow's GitHub token (GITHUB_TOKEN, GH_TOKEN, the action's
// github-token input) and the runner's own ACTIONS_* variables (its runtime,
// cache and OIDC tokens).
func forbiddenEnv(name string) string {
	up := strings.ToUpper(name)
	switch {
	case up == "GITHUB_TOKEN", up == "GH_TOKEN", up == "INPUT_GITHUB-TOKEN", up == "INPUT_GITHUB_TOKEN":
		return fmt.Sprintf("env(%q) is refused: a suite never needs the job's GitHub token, and with it a suite could send the token to any endpoint; llmgate reads the token itself where it comments", name)
	case strings.HasPrefix(up, "ACTIONS_"):
		return fmt.Sprintf("env(%q) is refused: the ACTIONS_* variables are the runner's own tokens and endpoints, which a suite never needs", name)
	}
	return ""
}

// collectSecrets is every secret the suite read: env() values of variables
// named as secrets, the values of sensitive variables, every API key, and
// the values of server env entries whose names say secret; sorted and
// without repeats.
func (l *loader) collectSecrets() []string {
	out := append([]string(nil), l.secrets...)
	for _, t := range l.suite.Targets {
		if t == nil {
			continue
		}
		if t.APIKey != "" {
			out = append(out, t.APIKey)
		}
		for k, v := range t.Env {
			if v != "" && untrusted.SecretName(k) {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func (l *loader) decodeSuiteBlock(blocks hcl.Blocks) {
	name := strings.TrimSuffix(filepath.Base(l.filename), filepath.Ext(l.filename))
	l.suite.Name = name
	for i, b := range blocks {
		if i > 0 {
			l.duplicate(b, blocks[0], "suite")
			continue
		}
		l.suite.Name = b.Labels[0]
		l.checkLabel(b, "suite")
		var sb suiteBlock
		l.diags = append(l.diags, decodeBody(b.Body, &sb)...)
		ev := l.evaluator(nil)
		if s, ok := ev.str(sb.Description); ok {
			l.suite.Description = s
		}
	}
}

// evaluator returns an evaluator over the suite's context, or over ctx when
// it is not nil, checking references against sc (nil: top level).
func (l *loader) evaluator(sc *scope) *evaluator {
	if sc == nil {
		sc = &scope{vars: l.varNames}
	}
	return &evaluator{ctx: l.ctx, scope: sc, diags: &l.diags}
}

// errorf records an error at subject (which may be nil) with an optional context range.
func (l *loader) errorf(subject, context *hcl.Range, summary, format string, a ...any) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, a...),
		Subject:  subject,
		Context:  context,
	})
}

// required reports a required attribute that a block lacks. gohcl treats
// every *hcl.Attribute field as optional, so each block checks its own;
// the error is dropped when a mistake inside the block (a misspelled name)
// explains it. It returns false when attr is missing.
func (l *loader) required(attr *hcl.Attribute, name string, block hcl.Range, body hcl.Body, detail string) bool {
	if attr != nil {
		return true
	}
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Missing required argument",
		Detail:   fmt.Sprintf("The argument %q is required here: %s", name, detail),
		Subject:  block.Ptr(),
		Extra:    consequence{within: bodyRange(body, block), name: name},
	})
	return false
}

// duplicate reports b as a second definition of what prev already defines.
func (l *loader) duplicate(b, prev *hcl.Block, kind string) {
	if len(b.Labels) == 0 {
		l.errorf(b.DefRange.Ptr(), nil, "Duplicate "+kind+" block",
			"Only one %s block is allowed; the first is at %s.", kind, prev.DefRange)
		return
	}
	l.errorf(b.DefRange.Ptr(), nil, "Duplicate "+kind+" block",
		"%s %q is already defined at %s; each name may be used once.", kind, b.Labels[0], prev.DefRange)
}

// decodeBody decodes a block body into one of the block structs. Attributes
// are kept as *hcl.Attribute and evaluated later in the right context.
func decodeBody(body hcl.Body, v any) hcl.Diagnostics {
	return gohcl.DecodeBody(body, nil, v)
}

func hclsyntaxValidIdentifier(s string) bool { return hclsyntax.ValidIdentifier(s) }

// explainSyntax adds a way out to the HCL syntax errors users hit most.
// HCL allows one argument in a one-line block, so `load { concurrency = 8
// requests = 200 }`, natural to write, is a syntax error. It is known by
// its summary: HCL's parser gives its diagnostics no type or Extra.
func explainSyntax(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Summary == "Invalid single-argument block definition" {
			d.Detail += " A block written on one line may hold one argument only; put each argument on its own line."
		}
	}
	return diags
}

// dedupe drops diagnostics identical to an earlier one; sweep points
// evaluate the same expression several times.
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	seen := map[string]bool{}
	var out hcl.Diagnostics
	for _, d := range diags {
		key := fmt.Sprintf("%d|%s|%s", d.Severity, d.Summary, d.Detail)
		if d.Subject != nil {
			key += "|" + d.Subject.String()
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, d)
	}
	return out
}

// sortDiags orders diagnostics by position in the file (those without a
// position first), keeping the order of equal positions.
func sortDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return diags
}

// consequence marks a diagnostic that may only be a knock-on effect of
// another error inside within (a "missing requests" after a misspelled
// "requests"); it is dropped when such an error exists.
type consequence struct {
	within hcl.Range
	// name, when set, narrows the causes to errors that mention it (a
	// "did you mean \"model\"?" explains a missing model, not a missing image).
	name string
}

// dropConsequences removes knock-on diagnostics whose cause is reported.
func dropConsequences(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if c, ok := d.Extra.(consequence); ok && causedWithin(diags, c) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func causedWithin(diags hcl.Diagnostics, c consequence) bool {
	within := c.within
	for _, d := range diags {
		if _, ok := d.Extra.(consequence); ok || d.Severity != hcl.DiagError || d.Subject == nil {
			continue
		}
		// by its words: HCL's diagnostics carry no typed field for the
		// names they mention ("Did you mean \"model\"?")
		if c.name != "" && !strings.Contains(d.Detail, `"`+c.name+`"`) {
			continue
		}
		if d.Subject.Filename == within.Filename && d.Subject.Start.Byte >= within.Start.Byte && d.Subject.End.Byte <= within.End.Byte {
			return true
		}
	}
	return false
}

// bodyRange returns the source range of a block body, or fallback when the
// body is not native syntax.
func bodyRange(body hcl.Body, fallback hcl.Range) hcl.Range {
	if b, ok := body.(*hclsyntax.Body); ok {
		return b.SrcRange
	}
	return fallback
}

// checkLabel refuses a block label that a results file could not hold as
// a name (results.NameProblem): a line break, a control or bidirectional
// character, more than results.MaxNameBytes. Labels become run, suite and
// assert names that every report prints.
func (l *loader) checkLabel(b *hcl.Block, kind string) bool {
	p := results.NameProblem(b.Labels[0])
	if p == "" {
		return true
	}
	l.errorf(b.LabelRanges[0].Ptr(), b.DefRange.Ptr(), "Invalid "+kind+" name",
		"The %s name %q %s; it names the %s in every report. Use printable characters on one line.", kind, b.Labels[0], p, kind)
	return false
}
