package suite

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/runspec"
	"github.com/zclconf/go-cty/cty"
)

// serverBlock is `server "name" {...}`: a container started with
// testcontainers-go, vLLM's OpenAI-compatible image by default.
type serverBlock struct {
	Image   *hcl.Attribute `hcl:"image"`
	Model   *hcl.Attribute `hcl:"model"`
	Args    *hcl.Attribute `hcl:"args,optional"`
	Env     *hcl.Attribute `hcl:"env,optional"`
	GPUs    *hcl.Attribute `hcl:"gpus,optional"`
	IPC     *hcl.Attribute `hcl:"ipc,optional"`
	ShmSize *hcl.Attribute `hcl:"shm_size,optional"`
	Volumes *hcl.Attribute `hcl:"volumes,optional"`
	// UnsafeHostMounts allows volumes that hand the container the host.
	UnsafeHostMounts *hcl.Attribute `hcl:"unsafe_host_mounts,optional"`
	ModelFlag        *hcl.Attribute `hcl:"model_flag,optional"`
	StartupTimeout   *hcl.Attribute `hcl:"startup_timeout,optional"`
	APIKey           *hcl.Attribute `hcl:"api_key,optional"`
	DCGMExporter     *hcl.Attribute `hcl:"dcgm_exporter,optional"`
}

// fill sets t's fields from the block, validating each.
func (b *serverBlock) fill(ev *evaluator, t *plan.Target) {
	t.Image, _ = ev.str(b.Image)
	if t.Image == "" && b.Image != nil {
		if _, ok := ev.value(b.Image); ok {
			ev.errorAt(b.Image, "Empty image", "A server needs a container image, such as \"vllm/vllm-openai:v0.11.0\".")
		}
	}
	t.Model, _ = ev.str(b.Model)
	if args, ok := ev.strList(b.Args); ok {
		t.Args = args
		checkServerArgs(ev, b.Args, args)
	}
	t.Env, _ = ev.strMap(b.Env)
	if v, ok := ev.value(b.GPUs); ok {
		if s, ok := scalarText(v); ok {
			t.GPUs = s
		} else {
			ev.errorAt(b.GPUs, "Incorrect attribute value type", "gpus must be \"all\", a count such as 2, or device ids such as \"0,1\".")
		}
	}
	if ipc, ok := ev.str(b.IPC); ok {
		switch {
		case ipc == "", ipc == "host", ipc == "private", ipc == "shareable", ipc == "none", len(ipc) > 10 && ipc[:10] == "container:":
			t.IPC = ipc
		default:
			ev.errorAt(b.IPC, "Invalid IPC mode", "ipc = %q is not a Docker IPC mode; use \"host\" (what vLLM's docs recommend), \"private\", \"shareable\" or \"none\".%s",
				ipc, didYouMean(ipc, []string{"host", "private", "shareable", "none"}))
		}
	}
	if s, ok := ev.str(b.ShmSize); ok {
		n, err := ParseSize(s)
		if err != nil {
			ev.errorAt(b.ShmSize, "Invalid size", "shm_size = %q: %v.", s, err)
		} else {
			t.ShmSize = n
		}
	}
	t.Volumes, _ = ev.strMap(b.Volumes)
	t.UnsafeHostMounts, _ = ev.boolean(b.UnsafeHostMounts)
	if !t.UnsafeHostMounts {
		checkHostMounts(ev, b.Volumes, t.Volumes)
	}
	t.ModelFlag, _ = ev.boolean(b.ModelFlag)
	t.StartupTimeout, _ = ev.duration(b.StartupTimeout)
	t.APIKey, _ = ev.str(b.APIKey)
	fillDCGMExporter(ev, b.DCGMExporter, t)
}

// checkHostMounts refuses, at the entry of volumes that names it, a host
// path that would hand the container the host (runspec.HostMountRisk): a
// suite may be a pull request's, and a container that mounts the Docker
// socket or / runs anything on the runner.
func checkHostMounts(ev *evaluator, attr *hcl.Attribute, volumes map[string]string) {
	var sources []string
	for src := range volumes {
		if strings.HasPrefix(src, "/") || strings.HasPrefix(src, ".") {
			sources = append(sources, src)
		}
	}
	sort.Strings(sources)
	for _, src := range sources {
		why := runspec.HostMountRisk(src)
		if why == "" {
			continue
		}
		d := attrDiag(hcl.DiagError, attr, "Unsafe host mount",
			"volumes mounts "+src+" into the container, and "+why+": the container could take over the host (a suite on a pull request is the pull request's code). "+
				"Mount a directory of its own instead, or, for a runner whose every job you trust, set unsafe_host_mounts = true in this server block.")
		if r := volumeKeyRange(attr, src, ev); r != nil {
			d.Subject = r
		}
		*ev.diags = append(*ev.diags, d)
	}
}

// volumeKeyRange is the range of the key src in a volumes object
// constructor, when the attribute is one.
func volumeKeyRange(attr *hcl.Attribute, src string, ev *evaluator) *hcl.Range {
	if attr == nil {
		return nil
	}
	obj, ok := attr.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return nil
	}
	for _, item := range obj.Items {
		if k, diags := item.KeyExpr.Value(ev.ctx); !diags.HasErrors() && k.Type() == cty.String && k.IsKnown() && !k.IsNull() && k.AsString() == src {
			r := item.KeyExpr.Range()
			return &r
		}
	}
	return nil
}
