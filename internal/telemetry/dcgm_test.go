package telemetry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// dcgmPage is a DCGM exporter page as dcgm-exporter writes one: HELP and
// TYPE lines, device labels (gpu, UUID, device, modelName, Hostname, pod
// labels), families llmgate does not read, and devices listed out of order.
const dcgmPage = `# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1980
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="10",UUID="GPU-cccc",device="nvidia10",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 5
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1",container="vllm",namespace="llm",pod="vllm-0"} 40
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1",container="vllm",namespace="llm",pod="vllm-0"} 87
# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-aaaa",device="nvidia0"} 10000
DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-bbbb",device="nvidia1"} 45000
DCGM_FI_DEV_FB_FREE{gpu="10",UUID="GPU-cccc",device="nvidia10"} 81000
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaaa",device="nvidia0"} 70000
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-bbbb",device="nvidia1"} 35000
DCGM_FI_DEV_FB_USED{gpu="10",UUID="GPU-cccc",device="nvidia10"} 0
# HELP DCGM_FI_DEV_FB_RESERVED Framebuffer memory reserved (in MiB).
# TYPE DCGM_FI_DEV_FB_RESERVED gauge
DCGM_FI_DEV_FB_RESERVED{gpu="0",UUID="GPU-aaaa",device="nvidia0"} 1000
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",device="nvidia0"} 412.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",device="nvidia1"} 250
DCGM_FI_DEV_POWER_USAGE{gpu="10",UUID="GPU-cccc",device="nvidia10"} 70.25
# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.
# TYPE DCGM_FI_DEV_XID_ERRORS gauge
DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-aaaa",device="nvidia0",err_code="0",err_msg="No Error"} 0
`

func TestParseDCGM(t *testing.T) {
	rs, err := ParseDCGM(strings.NewReader(dcgmPage), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ util, used, total, power float64 }{
		{87, 70000, 81000, 412.5}, // gpu 0: used + free + reserved
		{40, 35000, 80000, 250},
		{5, 0, 81000, 70.25}, // gpu 10 sorts after 1, not between 1 and 2
	}
	if len(rs) != len(want) {
		t.Fatalf("%d GPUs, want %d: %+v", len(rs), len(want), rs)
	}
	for i, w := range want {
		r := rs[i]
		if r.UtilPercent != w.util || r.MemoryUsedMiB != w.used || r.MemoryTotalMiB != w.total || r.PowerWatts == nil || *r.PowerWatts != w.power {
			t.Errorf("GPU %d: %+v, want %+v", i, r, w)
		}
	}
}

// TestParseDCGMDevices: with the server's devices named, the node's other
// GPUs are left out, by index or by UUID.
func TestParseDCGMDevices(t *testing.T) {
	for _, c := range []struct {
		devices []string
		util    []float64
	}{
		{[]string{"1"}, []float64{40}},
		{[]string{"GPU-aaaa", "10"}, []float64{87, 5}},
		{[]string{"GPU-cccc", "GPU-bbbb"}, []float64{40, 5}},
	} {
		rs, err := ParseDCGM(strings.NewReader(dcgmPage), c.devices)
		if err != nil {
			t.Fatalf("%v: %v", c.devices, err)
		}
		var util []float64
		for _, r := range rs {
			util = append(util, r.UtilPercent)
		}
		if fmt.Sprint(util) != fmt.Sprint(c.util) {
			t.Errorf("devices %v: utilisation %v, want %v", c.devices, util, c.util)
		}
	}
	if _, err := ParseDCGM(strings.NewReader(dcgmPage), []string{"7", "GPU-zzzz"}); err == nil || err.Error() != "the DCGM exporter lists none of the GPUs 7, GPU-zzzz" {
		t.Errorf("no device of the server's on the page: %v", err)
	}
}

func TestParseDCGMWithoutPowerOrFree(t *testing.T) {
	// No TYPE lines (untyped samples), a UUID instead of a gpu label, no
	// power and no free memory.
	rs, err := ParseDCGM(strings.NewReader("DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 12\nDCGM_FI_DEV_FB_USED{UUID=\"GPU-x\"} 300\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].UtilPercent != 12 || rs[0].MemoryUsedMiB != 300 || rs[0].MemoryTotalMiB != 0 || rs[0].PowerWatts != nil {
		t.Errorf("readings %+v", rs)
	}
	// The summary then has no power, as for nvidia-smi's [N/A].
	m := results.SummarizeGPU(&results.GPUSeries{Samples: []results.GPUSample{{GPUs: rs}}})
	if m.PowerMeanWatts != nil || m.MemoryUsedMaxMiB != 300 {
		t.Errorf("summary %+v", m)
	}
}

func TestParseDCGMRefusesHostilePages(t *testing.T) {
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "DCGM_FI_DEV_GPU_UTIL{gpu=\"%d\"} 1\n", i)
	}
	cases := []struct{ name, page, want string }{
		{"empty", "", "has no DCGM_FI_DEV_GPU_UTIL"},
		{"other exporter", "# TYPE node_load1 gauge\nnode_load1 0.5\n", "has no DCGM_FI_DEV_GPU_UTIL"},
		{"not prometheus", "<html>busy</html>\n", "parse the DCGM exporter's page"},
		{"NaN", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} NaN\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 1\n", `DCGM_FI_DEV_GPU_UTIL{gpu="0"}: NaN is not in [0, 100]`},
		{"negative", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} -1\n", `DCGM_FI_DEV_FB_USED{gpu="0"}: -1 is not in [0, 1.6777216e+07]`},
		{"over 100 %", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 101\n", "101 is not in [0, 100]"},
		{"infinite power", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 1\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} +Inf\n", "+Inf is not in [0, 100000]"},
		{"no memory", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n", `GPU "0" has no DCGM_FI_DEV_FB_USED`},
		{"memory of another GPU", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\nDCGM_FI_DEV_FB_USED{gpu=\"1\"} 1\n", `has no DCGM_FI_DEV_FB_USED`},
		{"no device label", "DCGM_FI_DEV_GPU_UTIL{pod=\"x\"} 5\n", `without a "gpu" or "UUID" label`},
		{"long label", "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + strings.Repeat("x", 100) + "\"} 5\n", "a gpu label of 100 bytes"},
		{"thousands of GPUs", many.String(), "more than 64 GPUs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, err := ParseDCGM(strings.NewReader(c.page), nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("readings %+v, error %v; want an error with %q", rs, err, c.want)
			}
			if strings.Contains(err.Error(), "xxxxxxxxxx") || strings.Contains(err.Error(), "<html>") {
				t.Errorf("the error quotes the page: %v", err)
			}
		})
	}
}
