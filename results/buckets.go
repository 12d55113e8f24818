package results

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// LengthBucket is the family of the input-length buckets' metrics:
// "length_bucket.long.ttft.p95" is the p95 TTFT of the bucket named long.
// Unlike the rest of the namespace its names depend on the run: a bucket
// is named by the workload (length_bucket_names) or after its place.
const LengthBucket Family = "length_bucket"

// bucketPrefix starts every bucket metric's name.
const bucketPrefix = string(LengthBucket) + "."

// sliceStat is one statistic a Slice has: "ttft.p95", "e2el.mean", ...
type sliceStat struct {
	name  string // "ttft.p95"
	of    Family
	st    stat
	stats func(*Slice) *Stats
}

// sliceStats are the statistics of a slice's TTFT and E2EL, in display
// order: what first_turn.*, later_turns.* and length_bucket.<name>.* have.
var sliceStats = func() []sliceStat {
	var out []sliceStat
	for _, lat := range []struct {
		family Family
		stats  func(*Slice) *Stats
	}{
		{TTFT, func(s *Slice) *Stats { return &s.TTFT }},
		{E2EL, func(s *Slice) *Stats { return &s.E2EL }},
	} {
		for _, st := range latencyStats {
			out = append(out, sliceStat{name: string(lat.family) + "." + st.name, of: lat.family, st: st, stats: lat.stats})
		}
	}
	return out
}()

// LengthBucket returns the bucket of s named name, or nil.
func (s *Summary) LengthBucket(name string) *Slice {
	for i := range s.LengthBuckets {
		if s.LengthBuckets[i].Name == name {
			return &s.LengthBuckets[i]
		}
	}
	return nil
}

// bucketMetric is the metric of statistic ss of the bucket named bucket.
func bucketMetric(bucket string, ss sliceStat) Metric {
	field := ss.st.field
	return Metric{Name: bucketPrefix + bucket + "." + ss.name, Family: LengthBucket, Bucket: bucket, Of: ss.of,
		Stat: ss.st.kind, Quantile: ss.st.quantile, Unit: Milliseconds, Better: LowerIsBetter,
		get: func(s *Summary) (float64, bool) {
			b := s.LengthBucket(bucket)
			if b == nil {
				return 0, false
			}
			st := ss.stats(b)
			if st.N == 0 {
				return 0, false
			}
			return field(st), true
		},
		fromLog: func(run *Run) []float64 {
			b := run.Summary.LengthBucket(bucket)
			if b == nil {
				return nil
			}
			return run.Requests.bucketValues(b.MinInputTokens, b.MaxInputTokens, ss.of)
		}}
}

// bucketValues returns the TTFT or E2EL (ms) of l's completed requests
// whose input length is in [lo, hi) (hi 0: no bound), in log order: a
// length bucket's per-request values, as its Slice summarises them (an
// empty answer has an E2EL but no TTFT).
func (l *RequestLog) bucketValues(lo, hi int, of Family) []float64 {
	if l == nil {
		return nil
	}
	col := l.TTFTUS
	if of == E2EL {
		col = l.E2ELUS
	}
	failed, empty := l.failedSet(), indexSet(l.EmptyAnswers)
	var out []float64
	for i := range l.Len() {
		n := l.InputTokens[i]
		if failed[i] || of != E2EL && empty[i] || n < lo || hi > 0 && n >= hi {
			continue
		}
		out = append(out, float64(col[i])/1000)
	}
	return out
}

// lookupBucketMetric parses "length_bucket.<bucket>.<ttft|e2el>.<stat>":
// the one place a bucket metric's name is taken apart.
func lookupBucketMetric(name string) (Metric, bool) {
	rest, ok := strings.CutPrefix(name, bucketPrefix)
	if !ok {
		return Metric{}, false
	}
	bucket, stat, ok := strings.Cut(rest, ".")
	if !ok || !ValidBucketName(bucket) {
		return Metric{}, false
	}
	for _, ss := range sliceStats {
		if ss.name == stat {
			return bucketMetric(bucket, ss), true
		}
	}
	return Metric{}, false
}

// BucketMetricNames returns the names of the metrics of the bucket named
// bucket, in display order.
func BucketMetricNames(bucket string) []string {
	out := make([]string, len(sliceStats))
	for i, ss := range sliceStats {
		out[i] = bucketPrefix + bucket + "." + ss.name
	}
	return out
}

// MetricNamesWithBuckets returns MetricNames followed by the metrics of
// each bucket named in buckets.
func MetricNamesWithBuckets(buckets []string) []string {
	names := MetricNames()
	for _, b := range buckets {
		names = append(names, BucketMetricNames(b)...)
	}
	return names
}

// ValidBucketName reports whether name can name a bucket in an
// expression: a letter, then letters, digits and underscores.
func ValidBucketName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r != '_' && (r < '0' || r > '9')) {
			return false
		}
	}
	return true
}

// DefaultBucketNames names the buckets of declared edges after their
// bounds: [512, 2048] gives input_0_512, input_512_2048 and input_2048_up.
func DefaultBucketNames(edges []int) []string {
	out := make([]string, len(edges)+1)
	for b := range out {
		lo, hi := "0", "up"
		if b > 0 {
			lo = strconv.Itoa(edges[b-1])
		}
		if b < len(edges) {
			hi = strconv.Itoa(edges[b])
		}
		out[b] = "input_" + lo + "_" + hi
	}
	return out
}

// QuantileBucketNames names n quantile buckets q1 (the shortest inputs)
// to qn (the longest).
func QuantileBucketNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "q" + strconv.Itoa(i+1)
	}
	return out
}

// QuantileEdges returns the n-1 edges that split lengths into n buckets
// of about equal counts: edge k is the length at rank k*len/n of the
// sorted lengths, so bucket k holds the lengths below it. Equal lengths
// stay together, so with few distinct lengths some buckets are empty.
// Nil for no lengths or n < 2.
func QuantileEdges(lengths []int, n int) []int {
	if len(lengths) == 0 || n < 2 {
		return nil
	}
	s := slices.Clone(lengths)
	sort.Ints(s)
	edges := make([]int, n-1)
	for k := 1; k < n; k++ {
		edges[k-1] = max(s[k*len(s)/n], 1)
	}
	return edges
}
