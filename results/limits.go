package results

import (
	"fmt"
	"math"
)

// Limits past which a value in a results file is absurd rather than slow:
// no serving request takes a day, and no server answers a billion
// requests or tokens a second.
const (
	// MaxLatencyMs bounds every latency, in milliseconds (one day).
	MaxLatencyMs = 24 * 3600 * 1000.0
	// MaxRate bounds every per-second rate.
	MaxRate = 1e9
	// MaxDurationS bounds a run's measured window, in seconds (30 days:
	// soak tests run long, not that long).
	MaxDurationS = 30 * 24 * 3600.0
)

// Limit is the range of one kind of quantity a results file holds: a
// finite number from 0 to Max. The limits below are the one table that
// both the parsers of outside pages (a server's /metrics, a DCGM
// exporter's page, nvidia-smi's answer) and Check use, so that whatever a
// parser accepts, a results file holding it is read back.
type Limit struct {
	// Max is the largest value that is not absurd.
	Max float64
	// What names the quantity in messages ("a latency (ms)").
	What string
}

// The quantities of a results file.
var (
	LimitLatency  = Limit{MaxLatencyMs, "a latency (ms)"}
	LimitRate     = Limit{MaxRate, "a rate"}
	LimitRatio    = Limit{1, "a ratio"}
	LimitDuration = Limit{MaxDurationS, "a duration (s)"}
	LimitTime     = Limit{MaxDurationS, "a time (s)"}
	// LimitCount bounds a count of requests (waiting, running, preempted).
	LimitCount = Limit{MaxRate, "a count"}
	// LimitTokens bounds a count of tokens: a billion a second for the
	// longest run.
	LimitTokens = Limit{MaxRate * MaxDurationS, "a token count"}
	// LimitRequestCount bounds a count of requests over a run: a billion
	// a second for the longest run.
	LimitRequestCount = Limit{MaxRate * MaxDurationS, "a count"}
	// LimitRequestTokens bounds one request's token count: no context is
	// ten million tokens long.
	LimitRequestTokens = Limit{1e7, "a token count"}
	// LimitUtilisation bounds a GPU's utilisation, in %.
	LimitUtilisation = Limit{100, "a utilisation (%)"}
	// LimitMemory bounds one GPU's memory, in MiB (16 TiB).
	LimitMemory = Limit{1 << 24, "a memory size (MiB)"}
	// LimitPower bounds one GPU's power draw, in W.
	LimitPower = Limit{1e5, "a power (W)"}
	// LimitEnergy bounds the energy of all a server's GPUs over a run, in
	// J: their most power for the longest run.
	LimitEnergy = Limit{1e5 * MaxGPUs * MaxDurationS, "an energy (J)"}
	// LimitEnergyPerToken bounds the energy per output token, in J.
	LimitEnergyPerToken = Limit{1e5 * MaxGPUs * MaxDurationS, "an energy per token (J)"}
	// LimitTotalPower bounds the draw of all a server's GPUs, in W.
	LimitTotalPower = Limit{1e5 * MaxGPUs, "a power (W)"}
)

// Problem says what is wrong with v as the quantity, "" when nothing is:
// it is not a finite number, it is negative, or it is above Max.
func (l Limit) Problem(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprintf("is %v: %s must be a finite number", v, l.What)
	case v < 0:
		return fmt.Sprintf("= %g: %s cannot be negative", v, l.What)
	case v > l.Max:
		return fmt.Sprintf("= %g: %s above %g is absurd", v, l.What, l.Max)
	}
	return ""
}
