package results

import "github.com/llmgate/llmgate/untrusted"

// Vary is what a capacity search varies. It is written to the results
// file as its string.
type Vary string

// Capacity variables.
const (
	VaryConcurrency Vary = "concurrency"
	VaryRate        Vary = "rate"
)

// Valid reports whether v is VaryConcurrency or VaryRate.
func (v Vary) Valid() bool { return v == VaryConcurrency || v == VaryRate }

// CapacityAnswer is the answer of a capacity search as the metric namespace
// sees it: capacity.concurrency or capacity.rate, higher being better.
type CapacityAnswer struct {
	// Vary is VaryConcurrency or VaryRate.
	Vary Vary `json:"vary" text:"name"`
	// Value is the largest load at which the SLO held (0 when it failed
	// even at the search's minimum). 0 is never a load that held: a
	// search's loads are above zero (its min must be), so 0 says none did.
	Value float64 `json:"value"`
}

// Capacity is the record of one capacity search: every probe it made and
// what it concluded.
type Capacity struct {
	// Vary is VaryConcurrency or VaryRate; Min and Max bound the search,
	// 0 < Min <= Max (a suite's capacity block must say so).
	Vary Vary    `json:"vary" text:"name"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	// SLO is the source text of the condition each probe must meet.
	SLO string `json:"slo"`
	// Values are the suite's values the SLO names (var.ttft_ms), as every
	// probe was judged with them, and Units the unit of each compared with
	// a metric (ttft.p95 < var.ttft_ms: ms); nil when it names none, and in
	// older files.
	Values map[string]float64 `json:"values,omitempty" text:"name"`
	Units  map[string]Unit    `json:"units,omitempty" text:"name"`
	// Answer is the largest load whose probes met the SLO (by majority of
	// repeats); 0 when even Min failed. Every load probed is at least Min,
	// above zero, so 0 is never a real answer: it only ever means none.
	Answer float64 `json:"answer"`
	// FailedAt is the smallest load above Answer whose probes failed the
	// SLO; 0 when Max itself passed (the capacity is at least Max). As for
	// Answer, 0 is never a load probed, so it only ever means none. The
	// true capacity lies in [Answer, FailedAt).
	FailedAt float64 `json:"failed_at,omitempty"`
	// Noisy counts loads whose repeated probes disagreed.
	Noisy int `json:"noisy,omitempty"`
	// Requests is the number of measured requests all probes sent.
	Requests int `json:"requests"`
	// Probes are in the order they ran.
	Probes []Probe `json:"probes"`
}

// Probe is one run of a capacity search at one load.
type Probe struct {
	// Load is the concurrency or rate the probe ran at.
	Load float64 `json:"load"`
	// Passed says whether the probe met the SLO.
	Passed bool `json:"passed"`
	// Stopped is "" for a probe that ran all its requests, or why it
	// stopped early: ProbeCannotMeet or ProbeMetWithConfidence.
	Stopped ProbeStop `json:"stopped,omitempty" text:"line"`
	// Status is the run status of the probe (a failed or invalid probe
	// counts as not meeting the SLO).
	Status Status `json:"status" text:"name"`
	// Error or the SLO's message says why a probe did not pass.
	Message untrusted.String `json:"message,omitempty"`
	// Requests is the number of measured requests the probe sent.
	Requests int `json:"requests"`
	// Summary is the probe's metrics.
	Summary Summary `json:"summary"`
}

// ProbeStop is why a capacity probe stopped before its last request; ""
// for a probe that ran them all. It is written to the results file as its
// string.
type ProbeStop string

// Reasons a probe stops before its last request.
const (
	ProbeCannotMeet        ProbeStop = "cannot_meet"
	ProbeMetWithConfidence ProbeStop = "met_with_confidence"
)

// Valid reports whether s is one of the ProbeStop constants ("", a probe
// that ran all its requests, is not).
func (s ProbeStop) Valid() bool { return s == ProbeCannotMeet || s == ProbeMetWithConfidence }
