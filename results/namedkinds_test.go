package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// The kinds a results file records (run status, ...) are named string
// types: the file check walks them as the strings they are, and they are
// written as the strings they were before they had types.
func TestCheckCoversNamedKinds(t *testing.T) {
	const bidi = "ok\u202e"
	for _, tt := range []struct {
		edit func(r *Run)
		want string
	}{
		{func(r *Run) { r.Status = bidi }, "runs[0].status"},
		{func(r *Run) { r.Capacity = &Capacity{Vary: bidi} }, "runs[0].capacity.vary"},
		{func(r *Run) { r.Capacity = &Capacity{Probes: []Probe{{Status: bidi}}} }, "runs[0].capacity.probes[0].status"},
		{func(r *Run) { r.Capacity = &Capacity{Probes: []Probe{{Stopped: bidi}}} }, "runs[0].capacity.probes[0].stopped"},
		{func(r *Run) { r.GPUSeries = &GPUSeries{Source: bidi} }, "runs[0].gpu_series.source"},
		{func(r *Run) { r.Calibration = &Calibration{Method: bidi} }, "runs[0].calibration.method"},
		{func(r *Run) { r.Dataset = &DatasetFit{Method: bidi} }, "runs[0].dataset.method"},
		{func(r *Run) { r.Requests = &RequestLog{Failures: []RequestFailure{{Kind: bidi}}} }, "runs[0].requests.failures[0].kind"},
	} {
		f := sampleFile()
		tt.edit(&f.Runs[0])
		err := f.Check()
		if want := tt.want + " holds the bidirectional control U+202E"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check error lacks %q:\n%v", want, err)
		}
	}
}

func TestNamedKindsMarshalAsStrings(t *testing.T) {
	for _, tt := range []struct {
		v    any
		want string
	}{
		{Run{Status: StatusPartial}, `"status":"partial"`},
		{Record{ErrorKind: ErrorTooLarge}, `"error_kind":"too_large"`},
		{RequestFailure{Kind: ErrorImported}, `"kind":"imported"`},
		{GPUSeries{Source: GPUSourceDCGM}, `"source":"dcgm-exporter"`},
		{Calibration{Method: CalibratedTokenIDs}, `"method":"token_ids"`},
		{DatasetFit{Method: CountEstimate}, `"method":"estimate"`},
		{Capacity{Vary: VaryRate}, `"vary":"rate"`},
		{Probe{Stopped: ProbeCannotMeet}, `"stopped":"cannot_meet"`},
	} {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tt.want) {
			t.Errorf("%T marshals as %s, want it to hold %s", tt.v, b, tt.want)
		}
	}
}

func TestStatusValid(t *testing.T) {
	for _, s := range []Status{StatusOK, StatusInvalid, StatusPartial, StatusFailed} {
		if !s.Valid() {
			t.Errorf("%q is not Valid", s)
		}
	}
	for _, s := range []Status{"", "OK", "great"} {
		if s.Valid() {
			t.Errorf("%q is Valid", s)
		}
	}
}

func TestErrorKindValid(t *testing.T) {
	for _, k := range []ErrorKind{ErrorHTTP, ErrorDisconnect, ErrorTimeout, ErrorProtocol, ErrorCanceled, ErrorTooLarge, ErrorImported} {
		if !k.Valid() {
			t.Errorf("%q is not Valid", k)
		}
	}
	for _, k := range []ErrorKind{"", "HTTP", "oom"} {
		if k.Valid() {
			t.Errorf("%q is Valid", k)
		}
	}
}
