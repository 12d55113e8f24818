package plan

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Shard names the Index-th of Count shards of a plan, counted from 1, as
// --shard i/n gives it.
type Shard struct {
	Index, Count int
}

// MaxShards bounds n in --shard i/n: far more than any CI matrix allows
// (GitHub's is 256 jobs), small enough that a typo is caught.
const MaxShards = 1024

// ParseShard parses "i/n" with 1 ≤ i ≤ n ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 2/4 for the second of four shards", s)
	}
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case ierr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("shard %q: i and n must be whole numbers, e.g. 2/4", s)
	case n < 1 || n > MaxShards:
		return Shard{}, fmt.Errorf("shard %q: n must be between 1 and %d", s, MaxShards)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("shard %q: i must be between 1 and n (%d)", s, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Weight is how much work a group or shard is, in Unit.
type Weight struct {
	Amount float64
	// Unit is WeightSeconds when every run of the plan has a known
	// duration, else WeightRequests.
	Unit string
}

// Weight units.
const (
	WeightSeconds  = "seconds"
	WeightRequests = "requests"
)

// Split divides the plan into n shards along its server groups, so that no
// server starts in two shards, balanced by each group's weight (see
// Weights). The assignment is greedy longest-first: groups in order of
// decreasing weight, ties in plan order, each to the shard with the least
// weight so far, ties to the lowest shard. It depends on the plan alone, so
// every shard job that loads the same suite with the same variables (and
// --only) computes the same split. Within a shard the groups keep plan
// order. A shard may be empty when n exceeds the number of groups.
func (p *Plan) Split(n int) []*Plan {
	if n < 1 {
		n = 1
	}
	w := p.Weights()
	order := make([]int, len(p.Groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return w[order[a]].Amount > w[order[b]].Amount })
	load := make([]float64, n)
	owner := make([]int, len(p.Groups))
	for _, gi := range order {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += w[gi].Amount
		owner[gi] = best
	}
	shards := make([]*Plan, n)
	for s := range shards {
		shards[s] = &Plan{}
	}
	for gi, g := range p.Groups {
		shards[owner[gi]].Groups = append(shards[owner[gi]].Groups, g)
	}
	return shards
}

// Shard returns the plan's shard s (see Split).
func (p *Plan) Shard(s Shard) *Plan { return p.Split(s.Count)[s.Index-1] }

// Weights returns each group's weight, in one unit for the whole plan: the
// expected seconds of its runs when every run's duration is known (a
// duration limit, or an open loop's requests over its rate), else its
// planned requests (see RunRequests). Server start times are not counted:
// the plan does not know them.
func (p *Plan) Weights() []Weight {
	unit := WeightSeconds
	for _, r := range p.Runs() {
		if _, ok := RunSeconds(r); !ok {
			unit = WeightRequests
			break
		}
	}
	ws := make([]Weight, len(p.Groups))
	for i, g := range p.Groups {
		ws[i].Unit = unit
		for _, r := range g.Runs {
			if unit == WeightSeconds {
				s, _ := RunSeconds(r)
				ws[i].Amount += s
			} else {
				ws[i].Amount += float64(RunRequests(r))
			}
		}
	}
	return ws
}

// RunSeconds is how long a run is expected to last when the plan knows it:
// its duration limit, or for an open loop with a request count, the
// requests (warmup included) over the rate, whichever is shorter.
func RunSeconds(r *Run) (float64, bool) {
	c := r.Load
	var s float64
	known := false
	if c.Rate > 0 && c.Requests > 0 {
		s, known = float64(c.Requests+c.Warmup)/c.Rate, true
	}
	if c.Duration > 0 {
		d := c.Duration.Seconds()
		if !known || d < s {
			s = d
		}
		known = true
	}
	return s, known
}

// RunRequests is how many requests a run plans to send, warmup included:
// its request count; without one, its rate times its duration; for a
// closed loop limited by duration only, an estimate of one request per
// user per second. At least 1.
func RunRequests(r *Run) int64 {
	c := r.Load
	var n float64
	switch {
	case c.Requests > 0:
		n = float64(c.Requests)
	case c.Rate > 0:
		n = math.Ceil(c.Rate * c.Duration.Seconds())
	default:
		n = float64(c.Concurrency) * math.Ceil(c.Duration.Seconds())
	}
	n += float64(c.Warmup)
	if n < 1 {
		return 1
	}
	return int64(n)
}
