package results

import (
	"slices"
	"testing"
)

func TestBucketMetricTyped(t *testing.T) {
	m, ok := LookupMetric("length_bucket.long.ttft.p95")
	if !ok || m.Family != LengthBucket || m.Bucket != "long" || m.Of != TTFT ||
		m.Stat != StatQuantile || m.Quantile != 0.95 || m.Unit != Milliseconds || m.Better != LowerIsBetter {
		t.Errorf("length_bucket.long.ttft.p95 = %+v, %v", m, ok)
	}
	for _, bad := range []string{"length_bucket.long", "length_bucket.long.tpot.p95", "length_bucket.2x.ttft.p95", "length_bucket..ttft.p95"} {
		if _, ok := LookupMetric(bad); ok {
			t.Errorf("%s is a metric", bad)
		}
	}
}

// TestBucketMetrics splits known records into named buckets and reads
// their metrics back through the namespace and Values.
func TestBucketMetrics(t *testing.T) {
	recs := convRecords() // inputs 100, 200, 300, 100, 200 and a failure without usage
	s := Analyze(recs, SummarizeOptions{LengthBuckets: []int{150}, LengthBucketNames: []string{"short", "long"}}).Summary
	if len(s.LengthBuckets) != 2 || s.LengthBuckets[0].Name != "short" || s.LengthBuckets[1].Name != "long" {
		t.Fatalf("buckets %+v, want short and long", s.LengthBuckets)
	}
	vals := s.Values()
	// short: the two first turns (100 tokens, TTFT 100 ms); long: 200, 300, 200 (20 ms)
	for name, want := range map[string]float64{"length_bucket.short.ttft.p95": 100, "length_bucket.long.ttft.p95": 20, "length_bucket.long.e2el.mean": 50} {
		m, _ := LookupMetric(name)
		if got, ok := m.Value(&s); !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, want)
		}
		if vals[name] != want {
			t.Errorf("Values()[%s] = %v, want %v", name, vals[name], want)
		}
	}
	if m, _ := LookupMetric("length_bucket.medium.ttft.p95"); m.Name == "" {
		t.Error("length_bucket.medium.ttft.p95 does not parse")
	} else if v, ok := m.Value(&s); ok {
		t.Errorf("a bucket the run lacks has a value %v", v)
	}
	// without names the buckets are named after their edges
	s = Analyze(recs, SummarizeOptions{LengthBuckets: []int{150, 250}}).Summary
	var got []string
	for _, b := range s.LengthBuckets {
		got = append(got, b.Name)
	}
	if want := []string{"input_0_150", "input_150_250", "input_250_up"}; !slices.Equal(got, want) {
		t.Errorf("default names %v, want %v", got, want)
	}
}

func TestQuantileEdges(t *testing.T) {
	lengths := make([]int, 100)
	for i := range lengths {
		lengths[i] = 1000 - 10*i // 1000 down to 10
	}
	if got, want := QuantileEdges(lengths, 4), []int{260, 510, 760}; !slices.Equal(got, want) {
		t.Errorf("quartile edges %v, want %v", got, want)
	}
	if got := QuantileEdges([]int{7, 7, 7, 7}, 2); !slices.Equal(got, []int{7}) {
		t.Errorf("edges of equal lengths %v, want [7] (the lower bucket empty)", got)
	}
	if QuantileEdges(nil, 4) != nil || QuantileEdges(lengths, 1) != nil {
		t.Error("edges without lengths or with one bucket")
	}
}

// TestCheckBuckets refuses a results file whose bucket names could not
// come from a suite (they reach metric names and reports) or repeat.
func TestCheckBuckets(t *testing.T) {
	for _, tt := range []struct {
		buckets []Slice
		bad     bool
	}{
		{[]Slice{{Name: "short", MaxInputTokens: 512}, {Name: "long", MinInputTokens: 512}}, false},
		{[]Slice{{Label: "< 512 tok", MaxInputTokens: 512}, {Label: "≥ 512 tok", MinInputTokens: 512}}, false}, // before names
		{[]Slice{{Name: "<script>", MaxInputTokens: 512}}, true},
		{[]Slice{{Name: "long"}, {Name: "long"}}, true},
		{[]Slice{{Name: "x", MinInputTokens: 900, MaxInputTokens: 10}}, true},
	} {
		c := &checker{at: "run r"}
		c.buckets(tt.buckets)
		if got := c.err() != nil; got != tt.bad {
			t.Errorf("buckets %+v: error %v, want %v", tt.buckets, c.err(), tt.bad)
		}
	}
}
