package runner

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/llmgate/llmgate/internal/load"
	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/runspec"
	"github.com/llmgate/llmgate/untrusted"
)

// abSchedule is the order of a run's 2·pairs blocks: the Thue-Morse
// sequence, "A" for the baseline side and "B" for the candidate (ABBA,
// ABBABAAB, ABBABAABBAABABBA). Its prefixes of 4 and 8 blocks put both
// sides at the same mean time (a linear drift cancels), of 8 and 16 also
// at the same mean squared time (a quadratic drift cancels too). Blocks
// 2k and 2k+1 always belong to different sides: they are pair k,
// adjacent in time.
func abSchedule(pairs int) string {
	var b strings.Builder
	for i := range 2 * pairs {
		if bits.OnesCount(uint(i))%2 == 0 {
			b.WriteByte('A')
		} else {
			b.WriteByte('B')
		}
	}
	return b.String()
}

// blockPairs is how many block pairs a run is split into: an even number
// (so that the Thue-Morse order cancels a linear drift), at most 8 (which
// also cancels a quadratic one), with blocks of at least 20 requests and
// 5 per user of a closed loop (a block's load self-checks hold over it),
// or of at least 10 s for a run bounded by time. A run too small for two
// pairs has one: AB, judged without pairs.
func blockPairs(cfg runspec.Load) int {
	per := 0
	switch {
	case cfg.Requests > 0:
		per = cfg.Requests / max(20, 5*cfg.Concurrency)
	case cfg.Duration > 0:
		per = int(cfg.Duration / (10 * time.Second))
	default:
		return 2
	}
	if per < 2 {
		return 1
	}
	return min(per, 8) / 2 * 2
}

// blockSeedStride separates the prompt seeds of a run's block pairs: both
// blocks of a pair share a seed, so they get the same prompts and
// arrivals, and no two pairs share prompts.
const blockSeedStride = 1_000_003

// blockLoad is the load of one block of pair of a run split into pairs:
// its share of the requests (or of the duration), the run's warmup only
// when the side's server is fresh (its first block, or the first after a
// restart), and the pair's seed. A trace's block replays the rows after
// those of the blocks before it: its measured rows follow theirs, its
// warmup (when it has one) comes from the rows just before its own.
func blockLoad(cfg runspec.Load, pairs, pair int, warm bool) runspec.Load {
	c := cfg
	if cfg.Requests > 0 {
		c.Requests = blockRequests(cfg.Requests, pairs, pair)
	}
	if cfg.Duration > 0 {
		c.Duration = cfg.Duration / time.Duration(pairs)
	}
	if cfg.Workload.Kind == runspec.WorkloadTrace && pair > 0 {
		switch {
		case cfg.Requests > 0:
			before := 0
			for p := range pair {
				before += blockRequests(cfg.Requests, pairs, p)
			}
			c.Workload.TraceSkip = cfg.Workload.TraceSkip + cfg.Warmup + before
			if warm {
				c.Workload.TraceSkip -= cfg.Warmup
			}
		default: // by time: the block's share of the trace's time
			scale := cfg.Workload.TimeScale
			if scale <= 0 {
				scale = 1
			}
			c.Workload.TraceStart += time.Duration(float64(c.Duration) * float64(pair) * scale)
		}
	}
	if !warm {
		c.Warmup = 0
	}
	c.Seed = cfg.Seed + int64(pair)*blockSeedStride
	return c
}

// blockRequests is pair's share of a run's requests split into pairs.
func blockRequests(requests, pairs, pair int) int {
	n := requests / pairs
	if pair < requests%pairs {
		n++
	}
	return n
}

// mergeABRun is one side's run made of its blocks, in schedule order:
// summary and samples over every block (results.MergeBlocks), the asserts
// evaluated on that, and the worst block's status. failed, when not nil,
// cut the run short on one side or the other: the run is failed on both
// sides (a pairing with a side missing cannot be judged).
func mergeABRun(sr *plan.Run, ref string, blocks []results.Run, slots []int, pairs int, failed error) results.Run {
	if len(blocks) == 0 {
		run := newRun(sr, ref)
		run.Status = results.StatusFailed
		run.Error = "no block ran"
		if failed != nil {
			run.Error = untrusted.String(failed.Error())
		}
		return run
	}
	run := blocks[0] // keeps what a block records beyond these fields
	run.Name, run.Scenario, run.Params, run.Target = sr.Name, sr.Scenario, sr.ParamMap(), ref
	run.Asserts, run.InvalidReasons, run.Error = nil, nil, ""
	run.Blocks = make([]results.Block, len(blocks))
	for i := range blocks {
		b := &blocks[i]
		run.Blocks[i] = results.Block{Pair: i, Slot: slots[i], Status: b.Status, Started: b.Started, Finished: b.Finished, Summary: b.Summary, Samples: b.Samples}
		for _, why := range b.InvalidReasons {
			if !slices.Contains(run.InvalidReasons, why) {
				run.InvalidReasons = append(run.InvalidReasons, why)
			}
		}
	}
	run.Started, run.Finished = blocks[0].Started, blocks[len(blocks)-1].Finished
	run.Summary, run.Samples = results.MergeBlocks(run.Blocks)
	lc := load.Recorded(sr.Load, sr.Trace) // the whole run's load, not a block's
	run.Load = &lc
	logs, offsets := make([]*results.RequestLog, len(blocks)), make([]int64, len(blocks))
	run.Unchecked = nil
	for i := range blocks {
		logs[i], offsets[i] = blocks[i].Requests, blocks[i].Started.Sub(run.Started).Microseconds()
		for _, u := range blocks[i].Unchecked {
			if !slices.Contains(run.Unchecked, u) {
				run.Unchecked = append(run.Unchecked, u)
			}
		}
	}
	run.Requests = results.JoinRequestLogs(logs, offsets)
	// the slices by turn and input length, over the whole run's requests
	run.Summary.Turns = run.Requests.Turns()
	run.Summary.LengthBuckets = run.Requests.LengthBuckets(sr.Load.Workload.LengthBuckets, sr.Load.Workload.LengthBucketNames)
	run.Lengths = mergeLengths(blocks)
	run.ServerSeries = nil // per block, scraped apart; each block's summary keeps its server figures
	run.Status = results.StatusOK
	for i := range blocks {
		if worse(blocks[i].Status, run.Status) {
			run.Status, run.Error = blocks[i].Status, blocks[i].Error
		}
	}
	if failed != nil || len(blocks) < pairs {
		if run.Status == results.StatusOK || run.Status == results.StatusInvalid {
			run.Status = results.StatusFailed
		}
		why := "the A/B run was cut short before its last block"
		if failed != nil {
			why = failed.Error()
		}
		run.Error = untrusted.String(why)
	}
	if run.Status != results.StatusInvalid {
		run.InvalidReasons = nil
	}
	if run.Status != results.StatusFailed {
		run.Asserts = sr.EvalAsserts(&run.Summary)
	}
	return run
}

// worse reports whether status a is worse than b: failed, partial,
// invalid, ok in that order.
func worse(a, b results.Status) bool {
	rank := func(s results.Status) int {
		switch s {
		case results.StatusFailed:
			return 3
		case results.StatusPartial:
			return 2
		case results.StatusInvalid:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// ErrABPlans is wrapped by CheckABPlans' error: the two sides of an A/B
// run are not the same plan.
var ErrABPlans = errors.New("the two sides of an A/B run must be the same plan")

// CheckABPlans checks that the candidate's and the baseline's plans differ
// in nothing but their targets and server arguments: the same groups of
// the same runs (names, scenarios, parameters), with the same workloads
// and loads. The variables of an A/B run may change only what is served.
func CheckABPlans(cand, base *plan.Plan) error {
	if len(cand.Groups) != len(base.Groups) {
		return fmt.Errorf("%w: the baseline side has %d server groups, the candidate %d (a variable changed how runs share servers)", ErrABPlans, len(base.Groups), len(cand.Groups))
	}
	for gi := range cand.Groups {
		cg, bg := cand.Groups[gi], base.Groups[gi]
		if len(cg.Runs) != len(bg.Runs) {
			return fmt.Errorf("%w: server group %d has %d runs on the baseline side, %d on the candidate", ErrABPlans, gi+1, len(bg.Runs), len(cg.Runs))
		}
		for ri := range cg.Runs {
			c, b := cg.Runs[ri], bg.Runs[ri]
			switch {
			case c.Name != b.Name:
				return fmt.Errorf("%w: run %d of server group %d is %s on the baseline side, %s on the candidate", ErrABPlans, ri+1, gi+1, b.Name, c.Name)
			case c.Scenario != b.Scenario || !reflect.DeepEqual(c.ParamMap(), b.ParamMap()):
				return fmt.Errorf("%w: run %s has other parameters on the two sides", ErrABPlans, c.Name)
			case !sameLoad(c.Load, b.Load):
				return fmt.Errorf("%w: run %s has another workload or load on the two sides (a variable changed what is sent, not what serves it)", ErrABPlans, c.Name)
			case c.Goodput != b.Goodput:
				return fmt.Errorf("%w: run %s has other goodput limits on the two sides", ErrABPlans, c.Name)
			}
		}
	}
	return nil
}

// sameLoad reports whether two runs send the same requests the same way,
// whatever server they are sent to (a runspec.Load names no server).
func sameLoad(a, b runspec.Load) bool { return reflect.DeepEqual(a, b) }

// mergeLengths is the blocks' requested and actual lengths, weighted by
// their completed requests; nil when no block has them.
func mergeLengths(blocks []results.Run) *results.Lengths {
	var m results.Lengths
	var w float64
	for i := range blocks {
		l, n := blocks[i].Lengths, float64(blocks[i].Summary.Requests.Completed)
		if l == nil || n == 0 {
			continue
		}
		m.InputRequested += n * l.InputRequested
		m.InputActual += n * l.InputActual
		m.OutputRequested += n * l.OutputRequested
		m.OutputActual += n * l.OutputActual
		w += n
	}
	if w == 0 {
		return nil
	}
	m.InputRequested, m.InputActual, m.OutputRequested, m.OutputActual = m.InputRequested/w, m.InputActual/w, m.OutputRequested/w, m.OutputActual/w
	return &m
}
