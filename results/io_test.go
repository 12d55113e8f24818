package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/untrusted"
)

func sampleFile() *File {
	return &File{
		Suite:       SuiteInfo{Name: "quickstart", File: "scenarios/quickstart.hcl"},
		Environment: Environment{GitSHA: "abc123", Model: "meta-llama/Llama-3.1-8B-Instruct", TargetKind: "simulator"},
		Created:     time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC),
		Runs: []Run{{
			Name:     "sweep[concurrency=8]",
			Scenario: "sweep",
			Params:   map[string]string{"concurrency": "8"},
			Target:   "simulator.sim",
			Status:   StatusOK,
			Started:  time.Date(2026, 11, 29, 15, 0, 1, 0, time.UTC),
			Finished: time.Date(2026, 11, 29, 15, 0, 9, 0, time.UTC),
			Summary:  Summary{TTFT: Stats{N: 3, P95: 612.4}, Server: &ServerMetrics{KVCacheUsageMax: 0.5}},
			Asserts:  []AssertResult{{Name: "fast", Passed: false, Condition: "ttft.p95 < 500", Values: map[string]float64{"ttft.p95": 612.4}}},
			Samples:  &Samples{TTFT: []float64{1, 2, 3}, TPOT: []float64{4}, E2EL: []float64{5}},
		}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	f := sampleFile()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if f.Version != "" {
		t.Errorf("Write modified the caller's file: Version = %q", f.Version)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleFile()
	want.Version = SchemaVersion
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip changed the file (-want +got):\n%s", diff)
	}
}

func TestReadVersions(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string // substring; "" means success
	}{
		// The version this build writes reads back.
		{name: "current", json: `{"version":"1.0","runs":[]}`},
		// A newer minor version adds fields this build ignores.
		{name: "newer minor", json: `{"version":"1.7","runs":[],"future_field":true}`},
		// A newer major version is refused with advice to upgrade.
		{name: "newer major", json: `{"version":"2.0","runs":[]}`, wantErr: "results file version 2.0 is newer than this llmgate understands (1.x); upgrade llmgate"},
		// An older major version is refused too.
		{name: "older major", json: `{"version":"0.9","runs":[]}`, wantErr: "older than this llmgate understands"},
		// A JSON file without a version is not a results file.
		{name: "no version", json: `{"runs":[]}`, wantErr: "no version field"},
		// A garbled version is reported as such.
		{name: "garbled version", json: `{"version":"one","runs":[]}`, wantErr: "not major.minor"},
		// Only major.minor in decimal digits is a version: Atoi's sign, a
		// lone major and leading zeros are not.
		{name: "signed", json: `{"version":"+1.99","runs":[]}`, wantErr: "not major.minor"},
		{name: "major only", json: `{"version":"1","runs":[]}`, wantErr: "not major.minor"},
		{name: "leading zero", json: `{"version":"01.1","runs":[]}`, wantErr: "not major.minor"},
		{name: "spaces", json: `{"version":" 1.1","runs":[]}`, wantErr: "not major.minor"},
		// Something that is not JSON fails to decode.
		{name: "not json", json: `version: 1`, wantErr: "decode results file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.json))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Read: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("Read succeeded, want error containing %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("Read error %q does not contain %q", err, tt.wantErr)
			}
			if tt.wantErr != "" && tt.wantErr != "decode results file" && !errors.Is(err, ErrVersion) {
				t.Errorf("error %v does not wrap ErrVersion", err)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, []byte("previous contents"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, sampleFile()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Runs[0].Name != "sweep[concurrency=8]" || got.Version != SchemaVersion {
		t.Errorf("read back %q version %q", got.Runs[0].Name, got.Version)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only results.json (no temp files left)", names)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing-dir", "results.json")
	if err := WriteFile(path, sampleFile()); err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
	// A path that is a directory can't be replaced; the directory must survive.
	if err := WriteFile(dir, sampleFile()); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file %s left behind", e.Name())
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFile of a missing file: %v, want os.ErrNotExist", err)
	}
}

// The probe: a server env value "true" was masked across the whole results
// JSON text, so the file no longer parsed and compare, gate and baseline
// promote exited 2. Masking now changes string values only: whatever the
// secrets, the file reads back with every number, literal and key intact.
func TestWriteFileMasksInsideStringsOnly(t *testing.T) {
	m := untrusted.NewMasker()
	m.Add("sweep[concurrency=8]", `"runs": [`, "612.4", "simulator.sim", "ttft.p95")
	defer untrusted.Use(m)()
	path := filepath.Join(t.TempDir(), "results.json")
	if err := WriteFile(path, sampleFile()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatalf("a masked file does not read back: %v", err)
	}
	r := got.Runs[0]
	if r.Name != "***" || r.Target != "***" || r.Summary.TTFT.P95 != 612.4 || r.Asserts[0].Values["ttft.p95"] != 612.4 || r.Asserts[0].Condition != "*** < 500" {
		t.Errorf("read back %+v", r)
	}
}
