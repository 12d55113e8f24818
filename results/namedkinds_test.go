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
	f := sampleFile()
	f.Runs[0].Status = bidi
	f.Runs[0].Capacity = &Capacity{Probes: []Probe{{Status: bidi}}}
	f.Runs[0].GPUSeries = &GPUSeries{Source: bidi}
	f.Runs[0].Calibration = &Calibration{Method: bidi}
	f.Runs[0].Dataset = &DatasetFit{Method: bidi}
	f.Runs[0].Requests = &RequestLog{Failures: []RequestFailure{{Kind: bidi}}}
	err := f.Check()
	if err == nil {
		t.Fatal("Check accepted named kinds holding a bidirectional control")
	}
	for _, want := range []string{
		"runs[0].status holds the bidirectional control U+202E",
		"runs[0].capacity.probes[0].status holds the bidirectional control U+202E",
		"runs[0].gpu_series.source holds the bidirectional control U+202E",
		"runs[0].calibration.method holds the bidirectional control U+202E",
		"runs[0].dataset.method holds the bidirectional control U+202E",
		"runs[0].requests.failures[0].kind holds the bidirectional control U+202E",
	} {
		if !strings.Contains(err.Error(), want) {
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
