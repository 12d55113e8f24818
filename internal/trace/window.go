package trace

import "time"

// Window is the part of a trace a run replays, and how fast.
type Window struct {
	// Start skips the rows that arrived before it (after the trace's
	// earliest row); Skip that many rows more.
	Start time.Duration
	Skip  int
	// Warmup rows go out first; the measured rows follow: at most Requests
	// of them (0: no count limit), those that arrive within Duration of the
	// first measured one (0: no time limit).
	Warmup, Requests int
	Duration         time.Duration
	// TimeScale divides the gaps between arrivals: 2 replays twice as fast.
	// 0 means 1.
	TimeScale float64
}

func (w Window) scale() float64 {
	if w.TimeScale > 0 {
		return w.TimeScale
	}
	return 1
}

// Rows returns the rows w replays, warmup first, in arrival order.
func (w Window) Rows(t *Trace) []Row {
	rows := t.Rows
	i := 0
	for i < len(rows) && rows[i].At < w.Start {
		i++
	}
	rows = rows[min(i+max(w.Skip, 0), len(rows)):]
	warm := min(w.Warmup, len(rows))
	measured := rows[warm:]
	n := len(measured)
	if w.Requests > 0 {
		n = min(n, w.Requests)
	}
	if w.Duration > 0 && n > 0 {
		first := measured[0].At
		k := 0
		for k < n && w.Scaled(measured[k].At-first) < w.Duration {
			k++
		}
		n = k
	}
	return rows[:warm+n]
}

// Scaled is a gap between two arrivals of the trace as the replay makes it.
func (w Window) Scaled(gap time.Duration) time.Duration {
	return time.Duration(float64(gap) / w.scale())
}

// Offsets returns when each of rows goes out, after the first of them:
// the trace's gaps, scaled.
func (w Window) Offsets(rows []Row) []time.Duration {
	out := make([]time.Duration, len(rows))
	for i := range rows {
		out[i] = w.Scaled(rows[i].At - rows[0].At)
	}
	return out
}
