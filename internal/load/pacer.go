package load

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/llmgate/llmgate/runspec"
)

// A Pacer decides when the next request goes out in an open-loop run: given
// the time elapsed since the run started and the number of requests sent so
// far, it returns how long to wait before the next one, or stop when it can
// pace no more (a zero or negative rate). A wait of 0 means "now": a late
// sender catches up instead of skipping requests.
type Pacer interface {
	Pace(elapsed time.Duration, hits uint64) (wait time.Duration, stop bool)
}

// scheduler is a Pacer that can say when request number hits is planned,
// as an offset from the start of the run (all of this package's can).
type scheduler interface {
	due(hits uint64) (time.Duration, bool)
}

func paceFrom(s scheduler, elapsed time.Duration, hits uint64) (time.Duration, bool) {
	at, ok := s.due(hits)
	if !ok {
		return 0, true
	}
	if at <= elapsed {
		return 0, false
	}
	return at - elapsed, false
}

// Constant sends Rate requests per second with equal gaps; request n is due
// at n/Rate.
type Constant struct {
	Rate float64
}

var _ Pacer = Constant{}

// Pace implements Pacer.
func (c Constant) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return paceFrom(c, elapsed, hits)
}

func (c Constant) due(hits uint64) (time.Duration, bool) {
	if !(c.Rate > 0) || math.IsInf(c.Rate, 0) {
		return 0, c.Rate > 0 // infinite rate: everything now
	}
	return seconds(float64(hits) / c.Rate), true
}

// Gamma sends requests with gamma-distributed gaps of mean 1/Rate and shape
// Shape, exactly as `vllm bench serve --burstiness`: each gap is drawn as
// gamma(shape=Shape, scale=1/(Rate*Shape)), so Shape 1 is a Poisson process,
// below 1 is burstier and above 1 more even (coefficient of variation
// 1/sqrt(Shape)). The first request goes out at once; the gaps follow from a
// generator seeded with Seed, so a schedule is reproducible. Build one with
// NewGamma or NewPoisson; a zero Gamma paces like Constant.
type Gamma struct {
	Rate  float64
	Shape float64
	Seed  int64
	seq   *arrivals
}

var _ Pacer = Gamma{}

// NewGamma returns a seeded gamma pacer.
func NewGamma(rate, shape float64, seed int64) Gamma {
	g := Gamma{Rate: rate, Shape: shape, Seed: seed}
	if rate > 0 && shape > 0 {
		g.seq = &arrivals{seed: uint64(seed), shape: shape, scale: 1 / (rate * shape)}
	}
	return g
}

// NewPoisson returns a seeded Poisson pacer: exponential gaps of mean 1/rate.
func NewPoisson(rate float64, seed int64) Gamma { return NewGamma(rate, 1, seed) }

// Pace implements Pacer.
func (g Gamma) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return paceFrom(g, elapsed, hits)
}

func (g Gamma) due(hits uint64) (time.Duration, bool) {
	if g.seq == nil {
		return Constant{Rate: g.Rate}.due(hits)
	}
	return seconds(g.seq.at(hits)), true
}

// arrivals is the cumulative schedule of random gaps, walked forward in
// constant memory (asking for an earlier request replays it from the seed);
// safe for concurrent use.
type arrivals struct {
	seed         uint64
	shape, scale float64

	mu  sync.Mutex
	rng *rand.Rand
	n   uint64  // request whose due time is t
	t   float64 // seconds
}

func (a *arrivals) at(n uint64) float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.rng == nil || n < a.n {
		a.rng = rand.New(rand.NewPCG(a.seed, 0x6c6c6d67617465))
		a.n, a.t = 0, 0
	}
	for a.n < n {
		a.t += gammaRand(a.rng, a.shape) * a.scale
		a.n++
	}
	return a.t
}

// gammaRand draws from gamma(shape, 1) by Marsaglia and Tsang's method,
// boosted for shape < 1.
func gammaRand(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return gammaRand(r, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = r.NormFloat64()
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := r.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// RampPacer changes the rate from From to To requests per second over
// Over, along Shape, then holds To. Request n is due when the integral of
// the rate reaches n. A ramp its shape cannot draw (a negative From, or an
// exponential one from 0 or to the same rate) holds To from the start.
type RampPacer struct {
	From, To float64
	Over     time.Duration
	Shape    runspec.RampShape
}

var _ Pacer = RampPacer{}

// Pace implements Pacer.
func (r RampPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return paceFrom(r, elapsed, hits)
}

func (r RampPacer) due(hits uint64) (time.Duration, bool) {
	T := r.Over.Seconds()
	if !(r.To > 0) || T <= 0 || !r.drawable() {
		return Constant{Rate: r.To}.due(hits)
	}
	n := float64(hits)
	if atOver := r.sentBy(T); n >= atOver {
		return seconds(T + (n-atOver)/r.To), true
	}
	return seconds(r.dueAt(n)), true
}

// drawable reports whether the shape can go from From to To.
func (r RampPacer) drawable() bool {
	if r.Shape == runspec.RampExponential {
		return r.From > 0 && r.From != r.To
	}
	return r.From >= 0
}

// sentBy is the integral of the rate from 0 to t <= Over: how many requests
// are due by t.
func (r RampPacer) sentBy(t float64) float64 {
	T := r.Over.Seconds()
	if r.Shape == runspec.RampExponential {
		k := math.Log(r.To/r.From) / T
		return r.From / k * (math.Exp(k*t) - 1)
	}
	a := (r.To - r.From) / T // rate slope
	return r.From*t + a*t*t/2
}

// dueAt inverts sentBy: the time in seconds at which request n is due,
// within the ramp.
func (r RampPacer) dueAt(n float64) float64 {
	T := r.Over.Seconds()
	if r.Shape == runspec.RampExponential {
		k := math.Log(r.To/r.From) / T
		return math.Log(1+n*k/r.From) / k
	}
	a := (r.To - r.From) / T
	if a == 0 {
		return n / r.From
	}
	// solve From*t + a/2 t² = n for the smallest t >= 0
	disc := max(r.From*r.From+2*a*n, 0)
	return (-r.From + math.Sqrt(disc)) / a
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}

// NewPacer returns the pacer cfg asks for: a ramp when cfg.Ramp.Kind is set,
// else constant gaps (Burstiness 0), Poisson (1) or gamma. It returns nil for
// a closed loop (Rate 0).
func NewPacer(cfg Config) Pacer {
	if !(cfg.Rate > 0) {
		return nil
	}
	if cfg.Ramp.Kind.Valid() {
		return RampPacer{From: cfg.Ramp.From, To: cfg.Rate, Over: cfg.Ramp.Over, Shape: cfg.Ramp.Kind}
	}
	if cfg.Burstiness > 0 {
		return NewGamma(cfg.Rate, cfg.Burstiness, cfg.Seed)
	}
	return Constant{Rate: cfg.Rate}
}
