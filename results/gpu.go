package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GPUQueryArgs are the nvidia-smi arguments whose output ParseGPUReadings
// reads: one line per GPU, "util %, memory used MiB, memory total MiB, power W".
var GPUQueryArgs = []string{"--query-gpu=utilization.gpu,memory.used,memory.total,power.draw", "--format=csv,noheader,nounits"}

// Bounds on what is accepted from nvidia-smi (untrusted text).
const (
	// MaxGPUOutput is the most bytes of one nvidia-smi answer that are read.
	MaxGPUOutput = 16 << 10
	// MaxGPUs is the most GPUs one answer may list.
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

// ParseGPUReadings reads nvidia-smi's answer to GPUQueryArgs. The text is
// untrusted: it must be at most MaxGPUOutput bytes and MaxGPUs lines of four
// numbers each within its Limit (LimitUtilisation, LimitMemory,
// LimitPower: what Check accepts); power may be "[N/A]". Anything else is an error that
// quotes no more than the line number.
func ParseGPUReadings(out string) ([]GPUReading, error) {
	if len(out) > MaxGPUOutput {
		return nil, fmt.Errorf("nvidia-smi output is over %d bytes", MaxGPUOutput)
	}
	var rs []GPUReading
	n := 0
	for line := range strings.Lines(out) {
		n++
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(rs) == MaxGPUs {
			return nil, fmt.Errorf("nvidia-smi lists more than %d GPUs", MaxGPUs)
		}
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return nil, fmt.Errorf("nvidia-smi line %d: want 4 comma-separated fields, got %d", n, len(f))
		}
		var r GPUReading
		var err error
		if r.UtilPercent, err = gpuNumber(f[0], LimitUtilisation); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: utilization: %w", n, err)
		}
		if r.MemoryUsedMiB, err = gpuNumber(f[1], LimitMemory); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: memory.used: %w", n, err)
		}
		if r.MemoryTotalMiB, err = gpuNumber(f[2], LimitMemory); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: memory.total: %w", n, err)
		}
		if p := strings.TrimSpace(f[3]); !strings.EqualFold(p, "[N/A]") && !strings.EqualFold(p, "N/A") {
			w, err := gpuNumber(p, LimitPower)
			if err != nil {
				return nil, fmt.Errorf("nvidia-smi line %d: power.draw: %w", n, err)
			}
			r.PowerWatts = &w
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("nvidia-smi listed no GPUs")
	}
	return rs, nil
}

// gpuNumber parses a finite number within l.
func gpuNumber(s string, l Limit) (float64, error) {
	s = strings.TrimSpace(s)
	if len(s) > 32 {
		return 0, fmt.Errorf("value too long")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number")
	}
	if v < 0 || v > l.Max {
		return 0, fmt.Errorf("%g out of range [0, %g]", v, l.Max)
	}
	return v, nil
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
