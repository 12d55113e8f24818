package suite

import (
	"strings"
	"testing"

	"github.com/llmgate/llmgate/results"
)

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in       string
		unit     results.Unit
		relative bool
		amount   float64
		wantErr  string
	}{
		// A percentage is relative.
		{in: "10%", unit: results.Milliseconds, relative: true, amount: 0.10},
		// A leading plus is allowed on percentages.
		{in: "+5%", unit: results.PerSecond, relative: true, amount: 0.05},
		// Milliseconds on a latency.
		{in: "+200ms", unit: results.Milliseconds, amount: 200},
		// Seconds on a latency become milliseconds.
		{in: "+0.5s", unit: results.Milliseconds, amount: 500},
		// A plain amount on a ratio metric is in its own unit.
		{in: "+0.01", unit: results.Ratio, amount: 0.01},
		// Negative bands make no sense.
		{in: "-5%", unit: results.Milliseconds, wantErr: "is negative"},
		// A time band on a throughput metric.
		{in: "+200ms", unit: results.PerSecond, wantErr: "is a time, but this metric is measured in tokens or requests per second"},
		// A latency band needs a unit.
		{in: "200", unit: results.Milliseconds, wantErr: "has no unit"},
		// Garbage.
		{in: "ten percent", unit: results.Ratio, wantErr: "is not a tolerance"},
		// Empty.
		{in: "", unit: results.Ratio, wantErr: "is not a tolerance"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			rel, amt, err := parseTolerance(tt.in, tt.unit)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || rel != tt.relative || amt != tt.amount {
				t.Errorf("= %v %v %v, want %v %v", rel, amt, err, tt.relative, tt.amount)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "16g", want: 16 << 30},   // Docker's shorthand
		{in: "512m", want: 512 << 20}, // megabytes
		{in: "1GiB", want: 1 << 30},   // IEC spelling, any case
		{in: "1.5g", want: 3 << 29},   // fractions
		{in: "4096", want: 4096},      // plain bytes
		{in: "lots", wantErr: true},   // no number
		{in: "16q", wantErr: true},    // unknown unit
		{in: "0g", wantErr: true},     // zero
		{in: "1e400g", wantErr: true}, // overflow
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
				t.Errorf("ParseSize(%q) = %d, %v", tt.in, got, err)
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		given string
		cands []string
		want  string
	}{
		{given: "concurency", cands: []string{"concurrency", "rate"}, want: ` Did you mean "concurrency"?`}, // one close candidate
		{given: "xyz", cands: []string{"concurrency", "rate"}, want: ""},                                    // nothing close
		{given: "p96", cands: []string{"p90", "p95", "p50"}, want: ` Did you mean "p90" or "p95"?`},         // ties listed
	}
	for _, tt := range tests {
		if got := didYouMean(tt.given, tt.cands); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.given, got, tt.want)
		}
	}
}
