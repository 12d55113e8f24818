package suite

import (
	"fmt"
	"strings"
	"testing"
)

// TestNumberWithUnit checks a unit written after a number, unquoted (a
// syntax error in HCL) or quoted (a string where a number is required), is
// named as such at the number, with the unit the value is in and the
// number to write instead.
func TestNumberWithUnit(t *testing.T) {
	const tmpl = `scenario "s" {
  load {
    concurrency = 1
    requests    = 10
%s
  }
  goodput {
%s
  }
  assert "a" {
    condition = %s
  }
}
`
	tests := []struct {
		name                  string
		load, goodput, assert string
		pos                   string // line:col of the diagnostic's subject
		want                  []string
	}{
		{name: "unquoted ms in a condition", assert: "ttft.p95 < 500ms", pos: "11:28",
			want: []string{"500ms is a number with a unit", "ttft.p95 is in milliseconds", "write 500."}},
		{name: "space before the unit", assert: "ttft.p95 < 500 ms && tpot.p50 < 20", pos: "11:28",
			want: []string{"ttft.p95 is in milliseconds", "write 500."}},
		{name: "seconds converted", assert: "e2el.p99 <= 1.5s", pos: "11:29",
			want: []string{"e2el.p99 is in milliseconds", "write 1500 (1.5s in milliseconds)"}},
		{name: "percent on a ratio", assert: "error_rate < 1%", pos: "11:30",
			want: []string{"error_rate is a ratio", "write 0.01 (1% as a ratio)"}},
		{name: "per second", assert: "throughput.output_tokens > 100tok/s", pos: "11:44",
			want: []string{"throughput.output_tokens is per second", "write 100."}},
		{name: "a unit of another kind", assert: "ttft.p95 < 100tok/s", pos: "11:28",
			want: []string{"ttft.p95 is in milliseconds", `which "100tok/s" is not`}},
		{name: "quoted in a condition", assert: `ttft.p95 < "500ms"`, pos: "11:28",
			want: []string{`"500ms" is a string holding a number with a unit`, "ttft.p95 is in milliseconds", "write 500."}},
		{name: "quoted goodput limit", goodput: `ttft = "500ms"`, pos: "8:12",
			want: []string{`ttft = "500ms" is a string holding a number with a unit`, "ttft is in milliseconds", "write 500."}},
		{name: "unquoted goodput limit", goodput: "tpot = 0.05s", pos: "8:12",
			want: []string{"tpot is in milliseconds", "write 50 (0.05s in milliseconds)"}},
		{name: "quoted rate", load: `rate = "5 req/s"`, pos: "5:12",
			want: []string{"rate is per second", "write 5."}},
		{name: "unquoted duration", load: "duration = 3m", pos: "5:16",
			want: []string{`duration takes a duration as a string: write "3m", in quotes.`}},
		{name: "no metric to go by", assert: "sweep.x < 5s", pos: "11:27",
			want: []string{"numbers in a suite are written without one", "latencies and goodput limits in milliseconds", "As a latency, it is written 5000 (5s in milliseconds)."}},
		{name: "a count", load: "warmup = 10s", pos: "5:14",
			want: []string{`10s is a number with a unit, and warmup is a count, which "10s" is not.`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert := tt.assert
			if assert == "" {
				assert = "ttft.p95 < 500"
			}
			src := fmt.Sprintf(tmpl, "    "+tt.load, "    "+tt.goodput, assert)
			_, diags := loadText(t, src, Options{})
			errs := diags.Errs()
			if len(errs) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d := diags[0]
			if d.Summary != "Number with a unit" {
				t.Fatalf("summary %q (%s), want Number with a unit", d.Summary, d.Detail)
			}
			if got := fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column); got != tt.pos {
				t.Errorf("at %s, want %s", got, tt.pos)
			}
			for _, w := range tt.want {
				if !strings.Contains(d.Detail, w) {
					t.Errorf("detail lacks %q:\n%s", w, d.Detail)
				}
			}
		})
	}
}

// TestNumberInANameIsNoUnit checks syntax errors near digits inside names
// (an unquoted image tag, a model name) are left as HCL words them.
func TestNumberInANameIsNoUnit(t *testing.T) {
	for _, line := range []string{
		"image = vllm/vllm-openai:v0.11.0",
		"model = llama3b",
	} {
		src := "server \"s\" {\n  " + line + "\n}\nscenario \"s\" {\n  load {\n    concurrency = 1\n    requests = 1\n  }\n}\n"
		_, diags := loadText(t, src, Options{})
		if !diags.HasErrors() {
			t.Fatalf("%s: no error", line)
		}
		for _, d := range diags {
			if d.Summary == "Number with a unit" {
				t.Errorf("%s: %s", line, d.Detail)
			}
		}
	}
}
