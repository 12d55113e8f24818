package results

import "fmt"

// maxGPUErrorBytes bounds a GPU series' recorded failure reason (the
// runner keeps a few hundred bytes).
const maxGPUErrorBytes = 1024

// gpu checks a run's GPU summary and series: counts within the bounds the
// samplers keep, every reading a finite number in range, a known source.
// A results file is read from artifacts: its series drives the HTML charts.
func (c *checker) gpu(m *GPUMetrics, s *GPUSeries) {
	if m != nil {
		if m.Count < 0 || m.Count > MaxGPUs || m.Samples < 0 || m.Samples > MaxGPUSamples || len(m.PerGPU) > MaxGPUs {
			c.fail(fmt.Sprintf("summary.gpu: %d GPUs, %d samples, %d per-GPU figures (at most %d GPUs and %d samples)", m.Count, m.Samples, len(m.PerGPU), MaxGPUs, MaxGPUSamples))
		}
		c.value("summary.gpu.util_mean_pct", m.UtilMeanPercent, LimitUtilisation)
		c.value("summary.gpu.util_max_pct", m.UtilMaxPercent, LimitUtilisation)
		c.value("summary.gpu.memory_used_max_mib", m.MemoryUsedMaxMiB, LimitMemory)
		if m.PowerMeanWatts != nil {
			c.value("summary.gpu.power_mean_w", *m.PowerMeanWatts, LimitTotalPower)
		}
		if m.PowerMaxWatts != nil {
			c.value("summary.gpu.power_max_w", *m.PowerMaxWatts, LimitTotalPower)
		}
		for i, g := range m.PerGPU {
			at := fmt.Sprintf("summary.gpu.per_gpu[%d]", i)
			c.value(at+".util_mean_pct", g.UtilMeanPercent, LimitUtilisation)
			c.value(at+".util_max_pct", g.UtilMaxPercent, LimitUtilisation)
			c.value(at+".memory_used_max_mib", g.MemoryUsedMaxMiB, LimitMemory)
			c.value(at+".memory_total_mib", g.MemoryTotalMiB, LimitMemory)
			if g.PowerMeanWatts != nil {
				c.value(at+".power_mean_w", *g.PowerMeanWatts, LimitPower)
			}
			if g.PowerMaxWatts != nil {
				c.value(at+".power_max_w", *g.PowerMaxWatts, LimitPower)
			}
		}
		if e := m.Energy; e != nil {
			c.value("summary.gpu.energy.joules", e.Joules, LimitEnergy)
			if e.PerToken != nil {
				c.value("summary.gpu.energy.per_token", *e.PerToken, LimitEnergyPerToken)
			}
		}
	}
	if s == nil {
		return
	}
	if s.Source != "" && !s.Source.Valid() {
		c.fail(fmt.Sprintf("gpu_series.source %q is not %q or %q", s.Source, GPUSourceNvidiaSMI, GPUSourceDCGM))
	}
	if len(s.Error) > maxGPUErrorBytes {
		c.fail(fmt.Sprintf("gpu_series.error is %d bytes, more than %d", len(s.Error), maxGPUErrorBytes))
	}
	c.count("gpu_series.dropped", int64(s.Dropped))
	if len(s.Samples) > MaxGPUSamples {
		c.fail(fmt.Sprintf("gpu_series has %d samples, more than %d", len(s.Samples), MaxGPUSamples))
		return
	}
	for i, smp := range s.Samples {
		at := fmt.Sprintf("gpu_series.samples[%d]", i)
		c.value(at+".t", smp.T, LimitTime)
		if len(smp.GPUs) > MaxGPUs {
			c.fail(fmt.Sprintf("%s lists %d GPUs, more than %d", at, len(smp.GPUs), MaxGPUs))
			continue
		}
		for j, g := range smp.GPUs {
			gat := fmt.Sprintf("%s.gpus[%d]", at, j)
			c.value(gat+".util_pct", g.UtilPercent, LimitUtilisation)
			c.value(gat+".memory_used_mib", g.MemoryUsedMiB, LimitMemory)
			c.value(gat+".memory_total_mib", g.MemoryTotalMiB, LimitMemory)
			if g.PowerWatts != nil {
				c.value(gat+".power_w", *g.PowerWatts, LimitPower)
			}
		}
	}
}
