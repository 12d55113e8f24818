package compare

import (
	"encoding/json"
	"math"

	"github.com/llmgate/llmgate/results"
)

// jsonRow is Row as JSON: NaN becomes null, errors become strings.
type jsonRow struct {
	Run       string            `json:"run"`
	Scenario  string            `json:"scenario,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Metric    string            `json:"metric"`
	Unit      string            `json:"unit,omitempty"`
	Tolerance Tolerance         `json:"tolerance"`
	Baseline  *float64          `json:"baseline"`
	Current   *float64          `json:"current"`
	Estimator Estimator         `json:"estimator"`
	Change    *float64          `json:"change"`
	ChangeLo  *float64          `json:"change_lo"`
	ChangeHi  *float64          `json:"change_hi"`
	Test      Test              `json:"test"`
	Delta     *float64          `json:"delta"`
	P         *float64          `json:"p"`
	N1        int               `json:"n1,omitempty"`
	N2        int               `json:"n2,omitempty"`
	Verdict   Verdict           `json:"verdict"`
	Reason    string            `json:"reason"`
	Rerun     bool              `json:"rerun,omitempty"`
	// SignificantInBand: significantly worse, inside the band.
	SignificantInBand bool     `json:"significant_in_band,omitempty"`
	Warnings          []string `json:"warnings,omitempty"`
	Confirm           *jsonRow `json:"confirm,omitempty"`
	// BaselineImported says the baseline was imported from another tool.
	BaselineImported *results.Imported `json:"baseline_imported,omitempty"`
}

// jsonNotJudged is NotJudged as JSON.
type jsonNotJudged struct {
	Run    string         `json:"run,omitempty"`
	Kind   NotJudgedKind  `json:"kind"`
	Status results.Status `json:"status,omitempty"`
	Reason string         `json:"reason"`
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func toJSONRow(r *Row) *jsonRow {
	j := &jsonRow{Run: r.Run, Scenario: r.Scenario, Params: r.Params, Metric: r.Metric.Name, Unit: string(r.Metric.Unit), Tolerance: r.Tolerance,
		Baseline: num(r.Baseline), Current: num(r.Current), Estimator: r.Estimator, Change: num(r.Change), ChangeLo: num(r.ChangeLo), ChangeHi: num(r.ChangeHi), Test: r.Test, Delta: num(r.Delta),
		P: num(r.P), N1: r.N1, N2: r.N2, Verdict: r.Verdict, Reason: r.Reason.Raw(), Rerun: r.Rerun, SignificantInBand: r.SignificantInBand, BaselineImported: r.BaselineImported}
	for _, w := range r.Warnings {
		j.Warnings = append(j.Warnings, w.Error())
	}
	if r.Confirm != nil {
		j.Confirm = toJSONRow(r.Confirm)
	}
	return j
}

// MarshalJSON encodes the comparison for --json and for tools: the
// verdict, the design, counts, rows (each with its tests' warnings),
// failed asserts, environment, runs to rerun and every warning
// (AllWarnings). The compared files themselves are not included.
func (c *Comparison) MarshalJSON() ([]byte, error) {
	n := c.Counts()
	out := struct {
		Decision      Decision        `json:"decision"`
		Design        Design          `json:"design"`
		Failed        bool            `json:"failed"`
		NotJudged     []jsonNotJudged `json:"not_judged"`
		MissingRuns   []string        `json:"missing_runs"`
		SkippedRuns   []string        `json:"skipped_runs,omitempty"`
		Counts        map[Verdict]int `json:"counts"`
		Metrics       int             `json:"metrics"`
		Alpha         float64         `json:"alpha"`
		Rows          []*jsonRow      `json:"rows"`
		FailedAsserts []FailedAssert  `json:"failed_asserts"`
		Environment   []EnvField      `json:"environment"`
		Rerun         []string        `json:"rerun"`
		Warnings      []string        `json:"warnings"`
	}{Decision: c.Decide(), Design: c.Design, Failed: c.Failed(), NotJudged: []jsonNotJudged{}, MissingRuns: c.MissingRuns(), SkippedRuns: c.SkippedRuns(), Counts: n.ByVerdict, Metrics: n.Metrics, Alpha: c.Config.alpha(),
		FailedAsserts: c.FailedAsserts, Environment: c.Environment, Rerun: c.RerunRuns(), Rows: []*jsonRow{}, Warnings: []string{}}
	for i := range c.Rows {
		out.Rows = append(out.Rows, toJSONRow(&c.Rows[i]))
	}
	for _, w := range c.AllWarnings() {
		out.Warnings = append(out.Warnings, w.Error())
	}
	for _, nj := range c.NotJudged {
		out.NotJudged = append(out.NotJudged, jsonNotJudged{Run: nj.Run, Kind: nj.Kind, Status: nj.Status, Reason: nj.Reason.Raw()})
	}
	if out.MissingRuns == nil {
		out.MissingRuns = []string{}
	}
	if out.FailedAsserts == nil {
		out.FailedAsserts = []FailedAssert{}
	}
	if out.Rerun == nil {
		out.Rerun = []string{}
	}
	return json.Marshal(out)
}
