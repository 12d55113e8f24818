package telemetry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmgate/llmgate/results"
)

func TestParseGPUReadings(t *testing.T) {
	got, err := ParseGPUReadings("87, 70000, 81559, 412.50\n 3 ,1024,81559,[N/A]\n\n")
	if err != nil {
		t.Fatal(err)
	}
	w := 412.5
	want := []results.GPUReading{
		{UtilPercent: 87, MemoryUsedMiB: 70000, MemoryTotalMiB: 81559, PowerWatts: &w},
		{UtilPercent: 3, MemoryUsedMiB: 1024, MemoryTotalMiB: 81559},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("readings (-want +got):\n%s", d)
	}
}

func TestParseGPUReadingsRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":        "",
		"fields":       "1, 2, 3\n",
		"util range":   "101, 1, 2, 3\n",
		"negative":     "5, -1, 2, 3\n",
		"nan":          "NaN, 1, 2, 3\n",
		"inf":          "5, 1, +Inf, 3\n",
		"text":         "No devices were found\n",
		"power":        "5, 1, 2, lots\n",
		"too big":      strings.Repeat("1, 1, 1, 1\n", MaxGPUOutput/10),
		"too many":     strings.Repeat("1, 1, 1, 1\n", results.MaxGPUs+1),
		"long value":   strings.Repeat("1", 40) + ", 1, 1, 1\n",
		"escape codes": "\x1b[31m5, 1, 2, 3\n",
	} {
		if _, err := ParseGPUReadings(in); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(err.Error(), "\x1b") {
			t.Errorf("%s: error quotes the input: %v", name, err)
		}
	}
}
