package results

// Bounds on the GPUs a results file may hold (what telemetry accepts from
// nvidia-smi and a DCGM exporter, and Check from a file).
const (
	// MaxGPUs is the most GPUs one sample may list.
	MaxGPUs = 64
	// MaxGPUSamples is the most samples a run's series keeps (over an hour at 1/s).
	MaxGPUSamples = 4096
)

// GPUReading is one GPU's state in one sample.
type GPUReading struct {
	// UtilPercent is utilization.gpu, 0–100.
	UtilPercent float64 `json:"util_pct"`
	// MemoryUsedMiB and MemoryTotalMiB are memory.used and memory.total.
	MemoryUsedMiB  float64 `json:"memory_used_mib"`
	MemoryTotalMiB float64 `json:"memory_total_mib"`
	// PowerWatts is power.draw; nil when the GPU does not report it ("[N/A]").
	PowerWatts *float64 `json:"power_w,omitempty"`
}

// GPUSample is every GPU's state at one moment of the measured phase.
type GPUSample struct {
	// T is seconds since the measured phase began.
	T float64 `json:"t"`
	// GPUs holds one reading per GPU, in nvidia-smi's order.
	GPUs []GPUReading `json:"gpus"`
}

// GPUSeries is the GPU samples of one run's measured phase.
type GPUSeries struct {
	Samples []GPUSample `json:"samples"`
	// Dropped counts samples that failed (nvidia-smi errors, unreadable
	// output, a DCGM exporter that did not answer in time).
	Dropped int `json:"dropped,omitempty"`
	// Error is why the last dropped sample failed, made safe to print.
	Error string `json:"error,omitempty"`
	// Source is where the readings came from: GPUSourceNvidiaSMI or
	// GPUSourceDCGM ("" in files written before there was a choice).
	Source GPUSource `json:"source,omitempty" text:"line"`
}

// GPUSource is where a GPUSeries' readings came from. It is written to the
// results file as its string.
type GPUSource string

// Where a GPUSeries' readings came from.
const (
	GPUSourceNvidiaSMI GPUSource = "nvidia-smi"
	GPUSourceDCGM      GPUSource = "dcgm-exporter"
)

// Valid reports whether s is one of the GPUSource constants ("", the
// source of a series written before it was recorded, is not).
func (s GPUSource) Valid() bool { return s == GPUSourceNvidiaSMI || s == GPUSourceDCGM }

// GPUStats are one GPU's figures over a run.
type GPUStats struct {
	UtilMeanPercent  float64  `json:"util_mean_pct"`
	UtilMaxPercent   float64  `json:"util_max_pct"`
	MemoryUsedMaxMiB float64  `json:"memory_used_max_mib"`
	MemoryTotalMiB   float64  `json:"memory_total_mib"`
	PowerMeanWatts   *float64 `json:"power_mean_w,omitempty"`
	PowerMaxWatts    *float64 `json:"power_max_w,omitempty"`
}

// GPUMetrics summarizes a run's GPU samples. Utilisation is over all GPUs
// (mean of every reading, highest reading); memory is the most any one GPU
// used; power is the GPUs' total draw (mean and highest over samples), absent
// when any GPU did not report power.
type GPUMetrics struct {
	// Count is the number of GPUs; Samples the number of samples summarized.
	Count   int `json:"count"`
	Samples int `json:"samples"`

	UtilMeanPercent  float64 `json:"util_mean_pct"`
	UtilMaxPercent   float64 `json:"util_max_pct"`
	MemoryUsedMaxMiB float64 `json:"memory_used_max_mib"`
	// PowerMeanWatts and PowerMaxWatts are nil when power is not reported.
	PowerMeanWatts *float64 `json:"power_mean_w,omitempty"`
	PowerMaxWatts  *float64 `json:"power_max_w,omitempty"`

	// PerGPU holds each GPU's own figures, in nvidia-smi's order.
	PerGPU []GPUStats `json:"per_gpu"`

	// Energy is what the GPUs drew over the measured phase; nil when power
	// was not reported.
	Energy *Energy `json:"energy,omitempty"`
}

// SummarizeGPU summarizes a series; nil when it has no samples. Samples
// whose GPU count differs from the first sample's are left out.
func SummarizeGPU(s *GPUSeries) *GPUMetrics {
	if s == nil || len(s.Samples) == 0 {
		return nil
	}
	count := len(s.Samples[0].GPUs)
	m := &GPUMetrics{Count: count, PerGPU: make([]GPUStats, count)}
	utilSum := make([]float64, count)
	powerSum := make([]float64, count)
	powerKnown := make([]bool, count)
	for i := range powerKnown {
		powerKnown[i] = true
	}
	totalKnown := true
	var totalSum, totalMax float64
	for _, smp := range s.Samples {
		if len(smp.GPUs) != count {
			continue
		}
		m.Samples++
		var total float64
		for i, r := range smp.GPUs {
			g := &m.PerGPU[i]
			utilSum[i] += r.UtilPercent
			g.UtilMaxPercent = max(g.UtilMaxPercent, r.UtilPercent)
			g.MemoryUsedMaxMiB = max(g.MemoryUsedMaxMiB, r.MemoryUsedMiB)
			g.MemoryTotalMiB = max(g.MemoryTotalMiB, r.MemoryTotalMiB)
			if r.PowerWatts == nil {
				powerKnown[i] = false
				totalKnown = false
				continue
			}
			powerSum[i] += *r.PowerWatts
			if g.PowerMaxWatts == nil || *r.PowerWatts > *g.PowerMaxWatts {
				g.PowerMaxWatts = ptr(*r.PowerWatts)
			}
			total += *r.PowerWatts
		}
		totalSum += total
		totalMax = max(totalMax, total)
	}
	if m.Samples == 0 || count == 0 {
		return nil
	}
	var utilAll float64
	for i := range m.PerGPU {
		g := &m.PerGPU[i]
		g.UtilMeanPercent = utilSum[i] / float64(m.Samples)
		utilAll += utilSum[i]
		m.UtilMaxPercent = max(m.UtilMaxPercent, g.UtilMaxPercent)
		m.MemoryUsedMaxMiB = max(m.MemoryUsedMaxMiB, g.MemoryUsedMaxMiB)
		if powerKnown[i] {
			g.PowerMeanWatts = ptr(powerSum[i] / float64(m.Samples))
		} else {
			g.PowerMaxWatts = nil
		}
	}
	m.UtilMeanPercent = utilAll / float64(m.Samples*count)
	if totalKnown {
		m.PowerMeanWatts = ptr(totalSum / float64(m.Samples))
		m.PowerMaxWatts = ptr(totalMax)
	}
	return m
}

func ptr(v float64) *float64 { return &v }
