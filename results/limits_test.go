package results

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestParsedGPUReadingsReadBack feeds the DCGM and nvidia-smi parsers
// values at and past every limit: whatever a parser accepts, a results
// file holding it (its series and summary) is written and read back, and
// what the reader would refuse the parser refuses. A DCGM page of 2^24 MiB
// used and 2^24 free was accepted (each within the limit) and made a file
// whose memory total, 2^25 MiB, the reader refused.
func TestParsedGPUReadingsReadBack(t *testing.T) {
	dcgm := func(util, used, free, reserved, power string) func() ([]GPUReading, error) {
		page := fmt.Sprintf("%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n%s{gpu=\"0\"} %s\n",
			DCGMUtil, util, DCGMFBUsed, used, DCGMFBFree, free, DCGMFBReserv, reserved, DCGMPower, power)
		return func() ([]GPUReading, error) { return ParseDCGM(strings.NewReader(page), nil) }
	}
	smi := func(line string) func() ([]GPUReading, error) {
		return func() ([]GPUReading, error) { return ParseGPUReadings(line + "\n") }
	}
	mem, power := fmt.Sprint(LimitMemory.Max), fmt.Sprint(LimitPower.Max)
	tests := []struct {
		name   string
		parse  func() ([]GPUReading, error)
		accept bool
	}{
		{"dcgm at every limit but the total", dcgm("100", mem, "0", "0", power), true},
		{"dcgm total at the limit", dcgm("50", fmt.Sprint(LimitMemory.Max-1000), "600", "400", "300"), true},
		{"dcgm used and free each at the limit", dcgm("50", mem, mem, "0", "300"), false},
		{"dcgm used, free and reserved near the limit", dcgm("50", fmt.Sprint(LimitMemory.Max-1), "1", "1", "300"), false},
		{"dcgm memory past the limit", dcgm("50", fmt.Sprint(LimitMemory.Max+1), "0", "0", "300"), false},
		{"dcgm utilisation past the limit", dcgm("100.5", "10", "10", "0", "300"), false},
		{"dcgm power past the limit", dcgm("50", "10", "10", "0", fmt.Sprint(LimitPower.Max*1.01)), false},
		{"dcgm NaN", dcgm("NaN", "10", "10", "0", "300"), false},
		{"dcgm +Inf", dcgm("50", "+Inf", "10", "0", "300"), false},
		{"dcgm negative", dcgm("50", "10", "-1", "0", "300"), false},
		{"nvidia-smi at every limit", smi("100, " + mem + ", " + mem + ", " + power), true},
		{"nvidia-smi memory past the limit", smi("100, 10, " + fmt.Sprint(LimitMemory.Max+1) + ", 300"), false},
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
			series := &GPUSeries{Source: GPUSourceDCGM, Samples: []GPUSample{{T: 0, GPUs: rs}, {T: 1, GPUs: rs}}}
			f := &File{Version: SchemaVersion, Runs: []Run{{Name: "chat", Scenario: "chat", Status: StatusOK, GPUSeries: series}}}
			f.Runs[0].Summary.GPU = SummarizeGPU(series)
			var b bytes.Buffer
			if err := f.Write(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(&b); err != nil {
				t.Errorf("a reading the parser accepted (%+v) makes a file the reader refuses: %v", rs[0], err)
			}
		})
	}
}

// TestLimitProblem checks the words of each kind of problem.
func TestLimitProblem(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, ""}, {LimitMemory.Max, ""},
		{LimitMemory.Max + 1, "= 1.6777217e+07: a memory size (MiB) above 1.6777216e+07 is absurd"},
		{-1, "= -1: a memory size (MiB) cannot be negative"},
	} {
		if got := LimitMemory.Problem(tt.v); got != tt.want {
			t.Errorf("Problem(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
