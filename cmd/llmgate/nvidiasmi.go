package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/results"
)

// standInName is the name under which the llmgate binary acts as a stand-in
// nvidia-smi: the simulator image copies it to /usr/bin/nvidia-smi so that
// GPU sampling can be tested on machines without GPUs.
const standInName = "nvidia-smi"

// standInGPUs is what the stand-in reports: two GPUs with fixed, known
// readings, so tests can check the figures against them.
const standInGPUs = "87, 70000, 81559, 412.50\n45, 35000, 81559, 250.00\n"

// isStandInNvidiaSMI reports whether the process was started as nvidia-smi.
func isStandInNvidiaSMI(argv0 string) bool {
	return strings.TrimSuffix(filepath.Base(argv0), ".exe") == standInName
}

// standInNvidiaSMI answers the GPU sampling query (results.GPUQueryArgs)
// and nothing else, with exit code 2 like nvidia-smi given a query it does
// not know; so the simulator reports no GPU name in its metadata.
func standInNvidiaSMI(args []string, stdout, stderr io.Writer) int {
	if !slices.Equal(args, results.GPUQueryArgs) {
		fmt.Fprintln(stderr, "nvidia-smi (llmgate stand-in): only answers", strings.Join(results.GPUQueryArgs, " "))
		return 2
	}
	_, _ = io.WriteString(stdout, standInGPUs)
	return 0
}
