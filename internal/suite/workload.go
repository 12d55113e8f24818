package suite

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// Default lengths for synthetic workloads, as `vllm bench serve --dataset-name random` uses.
const (
	defaultInputTokens  = 1024
	defaultOutputTokens = 128
	defaultTurns        = 3
)

// absurdThinkTime is the think time above which a suite is warned.
const absurdThinkTime = 10 * time.Minute

// workloadBlock is `workload {...}`: what each request asks for.
type workloadBlock struct {
	Kind         *hcl.Attribute `hcl:"kind,optional"`
	InputTokens  *hcl.Attribute `hcl:"input_tokens,optional"`
	OutputTokens *hcl.Attribute `hcl:"output_tokens,optional"`
	RangeRatio   *hcl.Attribute `hcl:"range_ratio,optional"`
	PrefixTokens *hcl.Attribute `hcl:"prefix_tokens,optional"`
	PrefixGroups *hcl.Attribute `hcl:"prefix_groups,optional"`
	Schema       *hcl.Attribute `hcl:"schema,optional"`
	Tools        *hcl.Attribute `hcl:"tools,optional"`
	ToolChoice   *hcl.Attribute `hcl:"tool_choice,optional"`
	Turns        *hcl.Attribute `hcl:"turns,optional"`
	ThinkTime    *hcl.Attribute `hcl:"think_time,optional"`
	LengthBucket *hcl.Attribute `hcl:"length_buckets,optional"`
	LengthQuant  *hcl.Attribute `hcl:"length_quantiles,optional"`
	BucketNames  *hcl.Attribute `hcl:"length_bucket_names,optional"`
	Dataset      *hcl.Attribute `hcl:"dataset,optional"`
	DatasetFilt  *hcl.Attribute `hcl:"dataset_filter,optional"`
	MaxPrompt    *hcl.Attribute `hcl:"max_prompt_tokens,optional"`
	MaxTotal     *hcl.Attribute `hcl:"max_total_tokens,optional"`
	File         *hcl.Attribute `hcl:"file,optional"`
	Format       *hcl.Attribute `hcl:"format,optional"`
	TimeScale    *hcl.Attribute `hcl:"time_scale,optional"`
	Start        *hcl.Attribute `hcl:"start,optional"`
	BlockSize    *hcl.Attribute `hcl:"block_size,optional"`
	Chat         *hcl.Attribute `hcl:"chat,optional"`
	TextPrompts  *hcl.Attribute `hcl:"text_prompts,optional"`
	IgnoreEOS    *hcl.Attribute `hcl:"ignore_eos,optional"`
	Body         hcl.Body       `hcl:",body"`
	DefRange     hcl.Range      `hcl:",def_range"`
}

// fill evaluates the workload into w, applying defaults; dir resolves dataset paths.
func (b *workloadBlock) fill(ev *evaluator, w *runspec.Workload, files *fileRoot, where hcl.Range) {
	w.Kind = runspec.WorkloadRandom
	if b == nil {
		w.InputTokens, w.OutputTokens = defaultInputTokens, defaultOutputTokens
		return
	}
	where = b.DefRange
	within := bodyRange(b.Body, b.DefRange)
	if k, ok := ev.str(b.Kind); ok {
		if kind := runspec.WorkloadKind(k); !kind.Valid() {
			kinds := workloadKindNames()
			ev.errorAt(b.Kind, "Unknown workload kind", "kind = %q: the workload kinds are %s.%s", k, strings.Join(kinds, ", "), didYouMean(k, kinds))
		} else {
			w.Kind = kind
		}
	}
	positive := func(attr *hcl.Attribute, dst *int, def int, what string) {
		*dst = def
		if n, ok := ev.int(attr); ok {
			if n < 1 {
				ev.errorAt(attr, "Invalid "+what, "%s = %d: %s must be at least 1.", attr.Name, n, what)
				return
			}
			if n > AbsurdTokens {
				ev.warnAt(attr, "Absurd "+what, "%s = %d tokens is longer than any model's context; did you mean a smaller number?", attr.Name, n)
			}
			*dst = n
		}
	}
	defIn, defOut := defaultInputTokens, defaultOutputTokens
	if w.Kind == runspec.WorkloadDataset {
		defIn, defOut = 0, 0 // the dataset's own lengths
	}
	if w.Kind == runspec.WorkloadTrace {
		// the trace's own lengths
		for _, a := range []*hcl.Attribute{b.InputTokens, b.OutputTokens, b.RangeRatio} {
			if a != nil {
				ev.warnAt(a, "Attribute ignored by this workload", "%s has no effect with kind = \"trace\": each request's lengths are its row's in the trace.", a.Name)
			}
		}
	} else {
		positive(b.InputTokens, &w.InputTokens, defIn, "input length")
		positive(b.OutputTokens, &w.OutputTokens, defOut, "output length")
	}
	if r, ok := ev.num(b.RangeRatio); ok && w.Kind != runspec.WorkloadTrace {
		if r < 0 || r >= 1 {
			ev.errorAt(b.RangeRatio, "Invalid range_ratio", "range_ratio = %s: lengths spread over [n*(1-r), n*(1+r)], so r must be at least 0 and below 1.", plan.FormatNumber(r))
		} else {
			w.RangeRatio = r
		}
	}
	onlyFor := func(attr *hcl.Attribute, kind runspec.WorkloadKind) {
		if attr != nil && w.Kind != kind {
			ev.warnAt(attr, "Attribute ignored by this workload", "%s is only used by kind = %q; with kind = %q it has no effect.", attr.Name, kind, w.Kind)
		}
	}
	onlyFor(b.PrefixTokens, runspec.WorkloadPrefix)
	onlyFor(b.PrefixGroups, runspec.WorkloadPrefix)
	onlyFor(b.Schema, runspec.WorkloadStructured)
	onlyFor(b.Turns, runspec.WorkloadConversation)
	onlyFor(b.ThinkTime, runspec.WorkloadConversation)
	onlyFor(b.Dataset, runspec.WorkloadDataset)
	onlyFor(b.DatasetFilt, runspec.WorkloadDataset)
	onlyFor(b.MaxPrompt, runspec.WorkloadDataset)
	onlyFor(b.MaxTotal, runspec.WorkloadDataset)
	for _, a := range []*hcl.Attribute{b.TimeScale, b.Start, b.BlockSize} {
		onlyFor(a, runspec.WorkloadTrace)
	}
	for _, a := range []*hcl.Attribute{b.File, b.Format} {
		if a != nil && w.Kind != runspec.WorkloadTrace && w.Kind != runspec.WorkloadDataset {
			ev.warnAt(a, "Attribute ignored by this workload", "%s is only used by kind = \"trace\" and kind = \"dataset\"; with kind = %q it has no effect.", a.Name, w.Kind)
		}
	}
	if w.Kind == runspec.WorkloadTrace {
		b.fillTrace(ev, w, where, within)
	}

	if w.Kind == runspec.WorkloadPrefix {
		positive(b.PrefixTokens, &w.PrefixTokens, 0, "prefix length")
		positive(b.PrefixGroups, &w.PrefixGroups, 1, "number of prefix groups")
		if b.PrefixTokens == nil {
			ev.consequenceRange(where, within, "Prefix workload without a prefix", "kind = \"prefix\" needs prefix_tokens: the length of the prefix requests share.")
		}
	}
	if w.Kind == runspec.WorkloadStructured {
		if b.Schema == nil {
			ev.consequenceRange(where, within, "Structured workload without a schema",
				"kind = \"structured\" needs schema: a JSON schema the answers must follow, as an HCL object or a JSON string (jsonencode(...) or file(\"schema.json\")).")
		} else if s, ok := schemaText(ev, b.Schema); ok {
			w.Schema = s
		}
	}
	if w.Kind == runspec.WorkloadConversation {
		positive(b.Turns, &w.Turns, defaultTurns, "number of turns")
		if d, ok := ev.duration(b.ThinkTime); ok {
			if d > absurdThinkTime {
				ev.warnAt(b.ThinkTime, "Absurd think time", "think_time = %s between turns would leave the server idle most of the run; did you mean a shorter time?", d)
			}
			w.ThinkTime = d
		}
	}
	if w.Kind == runspec.WorkloadDataset {
		b.fillDatasetFile(ev, w, files, where, within)
		if f, ok := ev.str(b.DatasetFilt); ok {
			switch {
			case !contains(runspec.DatasetFilters, f):
				ev.errorAt(b.DatasetFilt, "Unknown dataset_filter", "dataset_filter = %q: it is one of %s (none keeps every entry and counts those that cannot fit; context drops them; vllm_bench drops what vllm bench serve drops of a ShareGPT file: prompts or answers under 4 tokens, prompts over 1024, both over 2048).%s",
					f, strings.Join(runspec.DatasetFilters, ", "), didYouMean(f, runspec.DatasetFilters))
			case f != "none":
				w.DatasetFilter = f
			}
		}
	}
	b.fillBuckets(ev, w)
	w.Chat, _ = ev.boolean(b.Chat)
	if v, ok := ev.boolean(b.TextPrompts); ok {
		if v && w.Chat {
			ev.errorAt(b.TextPrompts, "text_prompts with chat", "text_prompts = true sends text to /v1/completions instead of token ids; chat prompts are text already. Set one of them.")
		}
		w.TextPrompts = v
	}
	if v, ok := ev.boolean(b.IgnoreEOS); ok {
		w.IgnoreEOS = &v
	}
	b.fillTools(ev, w)
}

// traced reports whether b asks for a trace workload, evaluating its kind
// quietly in ctx (fill reports what is wrong with it).
func (b *workloadBlock) traced(ctx *hcl.EvalContext) bool {
	if b == nil || b.Kind == nil {
		return false
	}
	v, d := b.Kind.Expr.Value(ctx)
	v, _ = v.Unmark()
	if d.HasErrors() || !v.IsWhollyKnown() || v.IsNull() || v.Type() != cty.String {
		return false
	}
	return runspec.WorkloadKind(v.AsString()) == runspec.WorkloadTrace
}

// schemaText evaluates a schema given as an HCL object or a JSON string
// and checks that it compiles as a JSON schema.
func schemaText(ev *evaluator, attr *hcl.Attribute) (string, bool) {
	v, ok := ev.value(attr)
	if !ok {
		return "", false
	}
	var text string
	switch {
	case v.Type() == cty.String:
		text = v.AsString()
	case v.Type().IsObjectType() || v.Type().IsMapType():
		b, err := ctyjson.Marshal(v, v.Type())
		if err != nil {
			ev.errorAt(attr, "Invalid schema", "schema can't be encoded as JSON: %v.", err)
			return "", false
		}
		text = string(b)
	default:
		ev.errorAt(attr, "Invalid schema", "schema must be a JSON schema: an HCL object like { type = \"object\", ... } or a JSON string, not %s.", friendlyType(v.Type()))
		return "", false
	}
	if why := schemaProblem(text); why != "" {
		ev.errorAt(attr, "Invalid schema", "schema %s.", why)
		return "", false
	}
	return text, true
}

// schemaProblem says what keeps text from being a JSON schema ("is not
// valid JSON: ..."), or "" when it compiles as one.
func schemaProblem(text string) string {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return fmt.Sprintf("is not valid JSON: %v", err)
	}
	if _, isObj := doc.(map[string]any); !isObj {
		return `must be a JSON object, like {"type": "object", ...}`
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err == nil {
		if _, err = c.Compile("schema.json"); err != nil {
			return "is not a valid JSON schema: " + oneLine(err.Error())
		}
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// workloadKindNames are runspec.WorkloadKinds as the suite writes them.
func workloadKindNames() []string {
	names := make([]string, len(runspec.WorkloadKinds))
	for i, k := range runspec.WorkloadKinds {
		names[i] = string(k)
	}
	return names
}
