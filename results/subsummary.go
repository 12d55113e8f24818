package results

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PartKind is what a part of a run is keyed by: a mix member or a stage.
type PartKind string

// The kinds of part; each is also the first part of its metrics' names.
const (
	// PartMix is one member of a mix: "mix.chat.ttft.p95".
	PartMix PartKind = "mix"
	// PartStage is one stage of a staged load, numbered from 1:
	// "stage.2.ttft.p95".
	PartStage PartKind = "stage"
)

// PartKinds are the kinds of part, in the order summaries list them.
var PartKinds = []PartKind{PartMix, PartStage}

// PartRef names one part of a run: its kind and key (the member's name,
// or the stage's number).
type PartRef struct {
	Kind PartKind
	Key  string
}

// IsZero reports whether r names no part (a metric of the whole run).
func (r PartRef) IsZero() bool { return r.Kind == "" }

// Prefix is what the metrics of the part start with: "mix.chat.".
func (r PartRef) Prefix() string { return string(r.Kind) + "." + r.Key + "." }

// StageRef names stage n (from 1).
func StageRef(n int) PartRef { return PartRef{PartStage, strconv.Itoa(n)} }

// MemberRef names the mix member called name.
func MemberRef(name string) PartRef { return PartRef{PartMix, name} }

// Part is the summary of a subset of a run's measured requests: those of
// one mix member, or those sent in one stage. Its Summary has every
// statistic the records give (latencies, throughput over the part's own
// window, errors, goodput, the client's figures), computed as the run's
// are; the server's and the GPUs' figures, which are not per request,
// are the run's alone.
type Part struct {
	Kind PartKind `json:"kind" text:"name"`
	// Key is the member's name or the stage's number.
	Key     string   `json:"key" text:"name"`
	Summary Summary  `json:"summary"`
	Samples *Samples `json:"samples,omitempty"`
}

// Ref names p.
func (p *Part) Ref() PartRef { return PartRef{p.Kind, p.Key} }

// Part returns the part of s that ref names, or nil.
func (s *Summary) Part(ref PartRef) *Part {
	for i := range s.Parts {
		if s.Parts[i].Kind == ref.Kind && s.Parts[i].Key == ref.Key {
			return &s.Parts[i]
		}
	}
	return nil
}

// partKey is the key of r in parts of kind k; "" when r belongs to none.
func (r *Record) partKey(k PartKind) string {
	switch k {
	case PartMix:
		return r.Member
	case PartStage:
		if r.Stage > 0 {
			return strconv.Itoa(r.Stage)
		}
	}
	return ""
}

// partsOf summarises recs by mix member and by stage: one Part for each
// key some measured record has, members by name and stages by number. A
// part's records keep their warmup ones (of the same key), which count
// for its requests in flight as the run's do. Nil for records with
// neither a member nor a stage.
func partsOf(recs []Record, opts SummarizeOptions) []Part {
	opts.LengthBuckets, opts.LengthBucketNames = nil, nil
	var out []Part
	for _, k := range PartKinds {
		groups := map[string][]Record{}
		var keys []string
		for i := range recs {
			key := recs[i].partKey(k)
			if key == "" {
				continue
			}
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], recs[i])
		}
		sort.Slice(keys, func(i, j int) bool { return partLess(k, keys[i], keys[j]) })
		for _, key := range keys {
			a := analyze(groups[key], opts)
			if a.Summary.Requests.Completed+a.Summary.Requests.Failed == 0 {
				continue // warmup only
			}
			out = append(out, Part{Kind: k, Key: key, Summary: a.Summary, Samples: a.Samples})
		}
	}
	return out
}

// partLess orders keys of kind k: stages by number, members by name.
func partLess(k PartKind, a, b string) bool {
	if k == PartStage {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x < y
	}
	return a < b
}

// ValidPartKey reports whether key can name a part of kind k in a metric
// name: a member's name as a bucket's (a letter, then letters, digits
// and underscores), a stage's number from 1 without leading zeros.
func ValidPartKey(k PartKind, key string) bool {
	switch k {
	case PartMix:
		return ValidBucketName(key)
	case PartStage:
		n, err := strconv.Atoi(key)
		return err == nil && n >= 1 && n <= MaxStages && strconv.Itoa(n) == key
	}
	return false
}

// MaxStages bounds the stages of a load, and so the stage numbers a
// metric may name.
const MaxStages = 100

// partFamilies are the families a part's summary never has: the server's,
// the GPUs', start-up and capacity figures are the run's, and a part has
// no parts or length buckets.
var partFamilies = map[Family]bool{"server": true, "gpu": true, "startup": true, CapacityFamily: true}

// partOf reports whether the run-level metric inner has a value in a
// part's summary.
func partOf(inner Metric) bool { return !partFamilies[inner.Family] }

// partMetric is the metric inner of the part ref.
func partMetric(ref PartRef, inner Metric) Metric {
	m := inner
	m.Name = ref.Prefix() + inner.Name
	m.Part = ref
	m.get = func(s *Summary) (float64, bool) {
		p := s.Part(ref)
		if p == nil {
			return 0, false
		}
		return inner.get(&p.Summary)
	}
	m.sample, m.fromLog = nil, nil
	if inner.sample != nil {
		m.fromLog = func(run *Run) []float64 {
			p := run.Summary.Part(ref)
			if p == nil || p.Samples == nil {
				return nil
			}
			return inner.sample(p.Samples)
		}
	}
	return m
}

// lookupPartMetric parses "<mix|stage>.<key>.<metric>": the one place a
// part metric's name is taken apart.
func lookupPartMetric(name string) (Metric, bool) {
	for _, k := range PartKinds {
		rest, ok := strings.CutPrefix(name, string(k)+".")
		if !ok {
			continue
		}
		key, innerName, ok := strings.Cut(rest, ".")
		if !ok || !ValidPartKey(k, key) {
			return Metric{}, false
		}
		inner, ok := namespace[innerName]
		if !ok || !partOf(inner) {
			return Metric{}, false
		}
		return partMetric(PartRef{k, key}, inner), true
	}
	return Metric{}, false
}

// PartMetricNames returns the names of the metrics of the part ref, sorted.
func PartMetricNames(ref PartRef) []string {
	var out []string
	for _, n := range MetricNames() {
		if partOf(namespace[n]) {
			out = append(out, ref.Prefix()+n)
		}
	}
	return out
}

// partValues adds the metrics of s's parts to out, by name.
func (s *Summary) partValues(out map[string]float64) {
	for i := range s.Parts {
		p := &s.Parts[i]
		for name, m := range namespace {
			if !partOf(m) {
				continue
			}
			if v, ok := m.get(&p.Summary); ok {
				out[p.Ref().Prefix()+name] = v
			}
		}
	}
}

// addPart records r's member and stage in entry i of l's columns, which
// exist only once some request has one.
func (l *RequestLog) addPart(r *Record, i int) {
	if r.Member != "" && l.Member == nil {
		l.Member = make([]string, i, cap(l.StartUS))
	}
	if l.Member != nil {
		l.Member = append(l.Member, r.Member)
	}
	if r.Stage > 0 && l.Stage == nil {
		l.Stage = make([]int, i, cap(l.StartUS))
	}
	if l.Stage != nil {
		l.Stage = append(l.Stage, r.Stage)
	}
}

// partColumns checks the log's member and stage columns; false when one
// does not match the others' length.
func (c *checker) partColumns(l *RequestLog) bool {
	n := l.Len()
	if l.Member != nil && len(l.Member) != n {
		c.fail(fmt.Sprintf("requests.member has %d entries, start_us %d", len(l.Member), n))
		return false
	}
	if l.Stage != nil && len(l.Stage) != n {
		c.fail(fmt.Sprintf("requests.stage has %d entries, start_us %d", len(l.Stage), n))
		return false
	}
	for i, m := range l.Member {
		if m != "" && !ValidPartKey(PartMix, m) {
			c.fail(fmt.Sprintf("requests.member[%d] %q: a member's name is a letter, then letters, digits or _, at most 32 characters", i, m))
			break
		}
	}
	for i, st := range l.Stage {
		if st < 0 || st > MaxStages {
			c.fail(fmt.Sprintf("requests.stage[%d] = %d: a stage is numbered from 1 to %d (0: none)", i, st, MaxStages))
			break
		}
	}
	return true
}

// parts checks a summary's parts: known kinds, keys that can name them,
// each part once, and their summaries and samples as the run's.
func (c *checker) parts(ps []Part) {
	seen := map[PartRef]bool{}
	for i := range ps {
		p := &ps[i]
		field := fmt.Sprintf("summary.parts[%d]", i)
		switch {
		case !ValidPartKey(p.Kind, p.Key):
			c.fail(fmt.Sprintf("%s: kind %q and key %q name no part (want mix and a member's name, or stage and a number from 1)", field, p.Kind, p.Key))
			continue
		case seen[p.Ref()]:
			c.fail(fmt.Sprintf("%s: %s %s is summarised twice", field, p.Kind, p.Key))
			continue
		case len(p.Summary.Parts) > 0:
			c.fail(fmt.Sprintf("%s: a part has no parts of its own", field))
			continue
		}
		seen[p.Ref()] = true
		at := c.at
		c.at = at + " " + field
		c.summary(&p.Summary)
		if p.Samples != nil {
			c.samples(p.Samples)
		}
		c.at = at
	}
}

// mergeParts merges the blocks' parts as MergeBlocks merges their
// summaries: one part for each member or stage some block has, in the
// order the blocks first have them.
func mergeParts(blocks []Block) []Part {
	var refs []PartRef
	byRef := map[PartRef][]Block{}
	for i := range blocks {
		for j := range blocks[i].Summary.Parts {
			p := &blocks[i].Summary.Parts[j]
			if _, ok := byRef[p.Ref()]; !ok {
				refs = append(refs, p.Ref())
			}
			byRef[p.Ref()] = append(byRef[p.Ref()], Block{Summary: p.Summary, Samples: p.Samples})
		}
	}
	var out []Part
	for _, ref := range refs {
		s, samples := MergeBlocks(byRef[ref])
		out = append(out, Part{Kind: ref.Kind, Key: ref.Key, Summary: s, Samples: samples})
	}
	return out
}
