package results

// LevelRequestsPerUser is how many measured requests per user a closed
// loop must send, more than, before its mean in flight is judged against
// its concurrency (Little's law): fewer are mostly its ramp up and down,
// and the run is not shown to have held the level it is named after.
const LevelRequestsPerUser = 2

// Shortfall is how a run fell short of showing the load it was driven
// with: too few measured requests for its concurrency to be reached and
// checked.
type Shortfall struct {
	// Concurrency is the run's users; Measured its measured requests.
	Concurrency, Measured int
	// MeanInFlight is the mean number of requests it held in flight; 0
	// when unknown.
	MeanInFlight float64
}

// traceWorkload is a trace replay's workload kind as the results file
// writes it (runspec.WorkloadTrace: results, the file format, imports no
// plan package).
const traceWorkload = "trace"

// Shortfall says how r fell short of its level: a closed loop of measured
// requests at most LevelRequestsPerUser × its concurrency, whose level the
// load generator could not check (the file's Unchecked says so too). nil
// for a run that showed its level, one not measured, an open loop (its
// achieved rate is checked; a trace replay is one, its concurrency a cap),
// or a file that predates the recorded load.
func (r *Run) Shortfall() *Shortfall {
	l := r.Load
	if l == nil || l.Rate > 0 || l.Workload == traceWorkload || l.Concurrency <= 1 || r.Status == StatusFailed {
		return nil
	}
	n := r.Summary.Requests.Completed + r.Summary.Requests.Failed
	if n > LevelRequestsPerUser*l.Concurrency {
		return nil
	}
	return &Shortfall{Concurrency: l.Concurrency, Measured: n, MeanInFlight: r.Summary.Client.MeanInFlight}
}
