package suite

import "github.com/hashicorp/hcl/v2"

// serverBlock is `server "name" {...}`: a container started with
// testcontainers-go, vLLM's OpenAI-compatible image by default.
type serverBlock struct {
	Image          *hcl.Attribute `hcl:"image"`
	Model          *hcl.Attribute `hcl:"model"`
	Args           *hcl.Attribute `hcl:"args,optional"`
	Env            *hcl.Attribute `hcl:"env,optional"`
	GPUs           *hcl.Attribute `hcl:"gpus,optional"`
	IPC            *hcl.Attribute `hcl:"ipc,optional"`
	ShmSize        *hcl.Attribute `hcl:"shm_size,optional"`
	Volumes        *hcl.Attribute `hcl:"volumes,optional"`
	ModelFlag      *hcl.Attribute `hcl:"model_flag,optional"`
	StartupTimeout *hcl.Attribute `hcl:"startup_timeout,optional"`
	APIKey         *hcl.Attribute `hcl:"api_key,optional"`
	DCGMExporter   *hcl.Attribute `hcl:"dcgm_exporter,optional"`
}

// fill sets t's fields from the block, validating each.
func (b *serverBlock) fill(ev *evaluator, t *Target) {
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
	t.ModelFlag, _ = ev.boolean(b.ModelFlag)
	t.StartupTimeout, _ = ev.duration(b.StartupTimeout)
	t.APIKey, _ = ev.str(b.APIKey)
	fillDCGMExporter(ev, b.DCGMExporter, t)
}
