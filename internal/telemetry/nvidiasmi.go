package telemetry

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// GPUQueryArgs are the nvidia-smi arguments whose output ParseGPUReadings
// reads: one line per GPU, "util %, memory used MiB, memory total MiB, power W".
var GPUQueryArgs = []string{"--query-gpu=utilization.gpu,memory.used,memory.total,power.draw", "--format=csv,noheader,nounits"}

// MaxGPUOutput is the most bytes of one nvidia-smi answer that are read
// (untrusted text).
const MaxGPUOutput = 16 << 10

// ParseGPUReadings reads nvidia-smi's answer to GPUQueryArgs. The text is
// untrusted: it must be at most MaxGPUOutput bytes and results.MaxGPUs
// lines of four numbers each within its limit (results.LimitUtilisation,
// LimitMemory, LimitPower: what results.Check accepts); power may be
// "[N/A]". Anything else is an error that quotes no more than the line
// number.
func ParseGPUReadings(out string) ([]results.GPUReading, error) {
	if len(out) > MaxGPUOutput {
		return nil, fmt.Errorf("nvidia-smi output is over %d bytes", MaxGPUOutput)
	}
	var rs []results.GPUReading
	n := 0
	for line := range strings.Lines(out) {
		n++
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(rs) == results.MaxGPUs {
			return nil, fmt.Errorf("nvidia-smi lists more than %d GPUs", results.MaxGPUs)
		}
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return nil, fmt.Errorf("nvidia-smi line %d: want 4 comma-separated fields, got %d", n, len(f))
		}
		var r results.GPUReading
		var err error
		if r.UtilPercent, err = gpuNumber(f[0], results.LimitUtilisation); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: utilization: %w", n, err)
		}
		if r.MemoryUsedMiB, err = gpuNumber(f[1], results.LimitMemory); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: memory.used: %w", n, err)
		}
		if r.MemoryTotalMiB, err = gpuNumber(f[2], results.LimitMemory); err != nil {
			return nil, fmt.Errorf("nvidia-smi line %d: memory.total: %w", n, err)
		}
		if p := strings.TrimSpace(f[3]); !strings.EqualFold(p, "[N/A]") && !strings.EqualFold(p, "N/A") {
			w, err := gpuNumber(p, results.LimitPower)
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
func gpuNumber(s string, l results.Limit) (float64, error) {
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
