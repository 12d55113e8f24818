package report

import "github.com/llmgate/llmgate/results"

// gpuHeads are the run table's GPU columns, shown when a run has GPU figures.
var gpuHeads = []string{"GPU util", "GPU mem", "GPU power", "J/token"}

// hasGPUFigures reports whether any run of f had its GPUs sampled.
func hasGPUFigures(f *results.File) bool {
	for i := range f.Runs {
		if f.Runs[i].Summary.GPU != nil {
			return true
		}
	}
	return false
}

// gpuCells are a run's GPU columns: mean utilisation, the most memory a GPU
// used, mean total power, energy per output token; "-" for what was not
// measured.
func gpuCells(g *results.GPUMetrics) []string {
	if g == nil {
		return []string{"-", "-", "-", "-"}
	}
	power, energy := "-", "-"
	if g.PowerMeanWatts != nil {
		power = Value(*g.PowerMeanWatts, results.Watts)
	}
	if e := g.Energy; e != nil && e.PerToken != nil {
		energy = fmtNum(*e.PerToken) // the head names the unit
	}
	return []string{Value(g.UtilMeanPercent, results.Percent), Value(g.MemoryUsedMaxMiB, results.MiB), power, energy}
}
