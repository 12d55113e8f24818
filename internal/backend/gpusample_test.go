package backend

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmgate/llmgate/results"
)

// TestReadGPUsStandIn reads the simulator image's stand-in nvidia-smi (the
// llmgate binary run under that name) through docker exec, and checks the
// readings against the fixed ones it prints.
func TestReadGPUsStandIn(t *testing.T) {
	session := newSession(t)
	c, err := startSim(t, session, WithGPUSampling())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !c.SamplesGPUs() {
		t.Fatal("SamplesGPUs = false with WithGPUSampling")
	}
	got, err := c.ReadGPUs(t.Context())
	if err != nil {
		t.Fatalf("ReadGPUs: %v", err)
	}
	p1, p2 := 412.5, 250.0
	want := []results.GPUReading{
		{UtilPercent: 87, MemoryUsedMiB: 70000, MemoryTotalMiB: 81559, PowerWatts: &p1},
		{UtilPercent: 45, MemoryUsedMiB: 35000, MemoryTotalMiB: 81559, PowerWatts: &p2},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("readings (-want +got):\n%s", d)
	}
}

func TestReadGPUsOffWithoutGPUs(t *testing.T) {
	session := newSession(t)
	c, err := startSim(t, session)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if c.SamplesGPUs() {
		t.Error("SamplesGPUs = true for a container without GPUs or WithGPUSampling")
	}
	if _, err := c.ReadGPUs(t.Context()); err == nil {
		t.Error("ReadGPUs read GPUs of a container that does not sample them")
	}
}
