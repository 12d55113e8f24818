package telemetry

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

// TestParsedGPUReadingsReadBack feeds the DCGM and nvidia-smi parsers
// values at and past every limit: whatever a parser accepts, a results
// file holding it (its series and summary) is written and read back, and
// what the reader would refuse the parser refuses. A DCGM page of 2^24 MiB
// used and 2^24 free was accepted (each within the limit) and made a file
// whose memory total, 2^25 MiB, the reader refused.
func TestParsedGPUReadingsReadBack(t *testing.T) {
	dcgm := func(util, used, free, reserved, power string) func() ([]results.GPUReading, error) {
		page := fmt.Sprintf("%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n",
			DCGMUtil, util, DCGMFBUsed, used, DCGMFBFree, free, DCGMFBReserv, reserved, DCGMPower, power)
		return func() ([]results.GPUReading, error) { return ParseDCGM(strings.NewReader(page), nil) }
	}
	smi := func(line string) func() ([]results.GPUReading, error) {
		return func() ([]results.GPUReading, error) { return ParseGPUReadings(line + "\n") }
	}
	mem, power := fmt.Sprint(results.LimitMemory.Max), fmt.Sprint(results.LimitPower.Max)
	tests := []struct {
		name   string
		parse  func() ([]results.GPUReading, error)
		accept bool
	}{
		{"dcgm at every limit but the total", dcgm("100", mem, "0", "0", power), true},
		{"dcgm total at the limit", dcgm("50", fmt.Sprint(results.LimitMemory.Max-1000), "600", "400", "300"), true},
		{"dcgm used and free each at the limit", dcgm("50", mem, mem, "0", "300"), false},
		{"dcgm used, free and reserved near the limit", dcgm("50", fmt.Sprint(results.LimitMemory.Max-1), "1", "1", "300"), false},
		{"dcgm memory past the limit", dcgm("50", fmt.Sprint(results.LimitMemory.Max+1), "0", "0", "300"), false},
		{"dcgm utilisation past the limit", dcgm("100.5", "10", "10", "0", "300"), false},
		{"dcgm power past the limit", dcgm("50", "10", "10", "0", fmt.Sprint(results.LimitPower.Max*1.01)), false},
		{"dcgm NaN", dcgm("NaN", "10", "10", "0", "300"), false},
		{"dcgm +Inf", dcgm("50", "+Inf", "10", "0", "300"), false},
		{"dcgm negative", dcgm("50", "10", "-1", "0", "300"), false},
		{"nvidia-smi at every limit", smi("100, " + mem + ", " + mem + ", " + power), true},
		{"nvidia-smi memory past the limit", smi("100, 10, " + fmt.Sprint(results.LimitMemory.Max+1) + ", 300"), false},
		{"nvidia-smi NaN", smi("NaN, 10, 10, 300"), false},
		{"nvidia-smi power past the limit", smi("10, 10, 10, 100001"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := tt.parse()
			if (err == nil) != tt.accept {
				t.Fatalf("parse: %+v, %v; want accepted %v", rs, err, tt.accept)
			}
			if err != nil {
				return
			}
			series := &results.GPUSeries{Source: results.GPUSourceDCGM, Samples: []results.GPUSample{{T: 0, GPUs: rs}, {T: 1, GPUs: rs}}}
			f := &results.File{Version: results.SchemaVersion, Runs: []results.Run{{Name: "chat", Scenario: "chat", Status: results.StatusOK, GPUSeries: series}}}
			f.Runs[0].Summary.GPU = results.SummarizeGPU(series)
			var b bytes.Buffer
			if err := f.Write(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := results.Read(&b); err != nil {
				t.Errorf("a reading the parser accepted (%+v) makes a file the reader refuses: %v", rs[0], err)
			}
		})
	}
}
