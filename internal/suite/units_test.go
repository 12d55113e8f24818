package suite

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
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

// TestUnsignedToleranceSaysHowItIsRead checks an absolute max_regression
// written without its sign is read as the band with "+" and says so with
// a warning at the value (how it was read, in which direction the metric
// gets worse, how to write it), and that a signed band or a percentage
// gets no warning.
func TestUnsignedToleranceSaysHowItIsRead(t *testing.T) {
	suite := func(metric, band string) string {
		return `scenario "s" {
  load {
    concurrency = 1
    requests    = 10
  }
}
gate {
  tolerance "` + metric + `" { max_regression = "` + band + `" }
}
`
	}
	tests := []struct {
		metric, band string
		amount       float64
		want         []string // in the warning; nil: no warning
	}{
		{metric: "ttft.p95", band: "50ms", amount: 50,
			want: []string{`max_regression = "50ms" is read as "+50ms"`, "ttft.p95 is more than 50 ms higher than the baseline's", `Write "+50ms"`}},
		{metric: "e2el.p99", band: "0.5s", amount: 500,
			want: []string{`read as "+0.5s"`, "more than 500 ms higher"}},
		{metric: "throughput.output_tokens", band: "50", amount: 50,
			want: []string{`read as "+50"`, "more than 50 lower than the baseline's"}},
		{metric: "ttft.p95", band: "+50ms", amount: 50},
		{metric: "ttft.p95", band: "10%", amount: 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.metric+" "+tt.band, func(t *testing.T) {
			s, diags := loadText(t, suite(tt.metric, tt.band), Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := s.Gate.Tolerances[0].Amount; got != tt.amount {
				t.Errorf("amount %v, want %v", got, tt.amount)
			}
			if tt.want == nil {
				if len(diags) != 0 {
					t.Errorf("want no diagnostic, got %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Severity != hcl.DiagWarning || diags[0].Summary != "Tolerance without a sign" {
				t.Fatalf("want one warning, got %v", diags)
			}
			d := diags[0]
			// The subject is the value on line 8, after `max_regression = `.
			col := len(`  tolerance "`+tt.metric+`" { max_regression = `) + 1
			if d.Subject == nil || d.Subject.Start.Line != 8 || d.Subject.Start.Column != col {
				t.Errorf("subject %v, want line 8 column %d", d.Subject, col)
			}
			for _, w := range tt.want {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("detail lacks %q:\n%s", w, d.Detail)
				}
			}
		})
	}
}
