package results

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarizeGPU(t *testing.T) {
	w := func(v float64) *float64 { return &v }
	s := &GPUSeries{Samples: []GPUSample{
		{T: 0, GPUs: []GPUReading{{UtilPercent: 50, MemoryUsedMiB: 100, MemoryTotalMiB: 1000, PowerWatts: w(100)}, {UtilPercent: 10, MemoryUsedMiB: 300, MemoryTotalMiB: 1000, PowerWatts: w(50)}}},
		{T: 1, GPUs: []GPUReading{{UtilPercent: 90, MemoryUsedMiB: 200, MemoryTotalMiB: 1000, PowerWatts: w(300)}, {UtilPercent: 30, MemoryUsedMiB: 250, MemoryTotalMiB: 1000, PowerWatts: w(150)}}},
		{T: 2, GPUs: []GPUReading{{UtilPercent: 100}}}, // GPU count changed: left out
	}}
	got := SummarizeGPU(s)
	want := &GPUMetrics{Count: 2, Samples: 2, UtilMeanPercent: 45, UtilMaxPercent: 90, MemoryUsedMaxMiB: 300,
		PowerMeanWatts: w(300), PowerMaxWatts: w(450),
		PerGPU: []GPUStats{
			{UtilMeanPercent: 70, UtilMaxPercent: 90, MemoryUsedMaxMiB: 200, MemoryTotalMiB: 1000, PowerMeanWatts: w(200), PowerMaxWatts: w(300)},
			{UtilMeanPercent: 20, UtilMaxPercent: 30, MemoryUsedMaxMiB: 300, MemoryTotalMiB: 1000, PowerMeanWatts: w(100), PowerMaxWatts: w(150)},
		}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	for name, v := range map[string]float64{"gpu.util.mean": 45, "gpu.util.max": 90, "gpu.memory_used.max": 300, "gpu.power.mean": 300, "gpu.power.max": 450} {
		m, ok := LookupMetric(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		if g, ok := m.Value(&Summary{GPU: got}); !ok || g != v {
			t.Errorf("%s = %v, %v; want %v", name, g, ok, v)
		}
		if _, ok := m.Value(&Summary{}); ok {
			t.Errorf("%s present without GPU figures", name)
		}
	}

	// A GPU without power: no total power.
	s.Samples[1].GPUs[1].PowerWatts = nil
	got = SummarizeGPU(s)
	if got.PowerMeanWatts != nil || got.PowerMaxWatts != nil || got.PerGPU[1].PowerMeanWatts != nil || got.PerGPU[0].PowerMeanWatts == nil {
		t.Errorf("power with a GPU not reporting it: %+v", got)
	}
	if m, _ := LookupMetric("gpu.power.mean"); true {
		if _, ok := m.Value(&Summary{GPU: got}); ok {
			t.Error("gpu.power.mean present though a GPU reports no power")
		}
	}
	if SummarizeGPU(&GPUSeries{}) != nil || SummarizeGPU(nil) != nil {
		t.Error("summary of no samples")
	}
}
