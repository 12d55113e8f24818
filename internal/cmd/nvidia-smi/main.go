// Command nvidia-smi is a stand-in for NVIDIA's nvidia-smi in the simulator
// image (installed as /usr/bin/nvidia-smi by the repository's Dockerfile), so
// that llmgate's GPU sampling through docker exec can be tested on machines
// without GPUs. It reports two GPUs with fixed, known readings for the one
// query llmgate makes (telemetry.GPUQueryArgs) and refuses every other.
//
// It is a binary of its own so that the llmgate binary users install holds
// no stand-in.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llmgate/llmgate/internal/telemetry"
)

// readings is what the stand-in reports: two GPUs, so tests can check the
// figures against them.
const readings = "87, 70000, 81559, 412.50\n45, 35000, 81559, 250.00\n"

func main() {
	os.Exit(answer(os.Args[1:], os.Stdout, os.Stderr))
}

// answer answers the GPU sampling query and nothing else, with exit code 2
// like nvidia-smi given a query it does not know; so the simulator reports
// no GPU name in its metadata.
func answer(args []string, stdout, stderr io.Writer) int {
	if !slices.Equal(args, telemetry.GPUQueryArgs) {
		fmt.Fprintln(stderr, "nvidia-smi (llmgate stand-in): only answers", strings.Join(telemetry.GPUQueryArgs, " "))
		return 2
	}
	_, _ = io.WriteString(stdout, readings)
	return 0
}
