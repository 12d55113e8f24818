package judge

import "github.com/llmgate/llmgate/results"

// Record is the record of j in the results file judged, against base (nil
// when only the asserts were judged): what llmgate gate writes into the
// file, so that a later report shows the gate's verdict.
func (j *Judgement) Record(base *results.File) *results.GateVerdict {
	v := &results.GateVerdict{Decision: string(j.Decision), Metrics: j.Counts.Metrics, Regressions: j.Regressions(),
		Inconclusive: j.Inconclusive(), FailedAsserts: j.Counts.FailedAsserts}
	if base != nil {
		v.Baseline = results.RefOf(base)
	}
	return v
}

// Reproduces reports whether j is the verdict v records, with the same
// counts, against the baseline base that v names.
func (j *Judgement) Reproduces(v *results.GateVerdict, base *results.File) bool {
	r := j.Record(base)
	return v.Decision == r.Decision && v.Metrics == r.Metrics && v.Regressions == r.Regressions &&
		v.Inconclusive == r.Inconclusive && v.FailedAsserts == r.FailedAsserts && v.Baseline.Is(base) == (base != nil)
}
