// Package changepoint finds the points where a series of measurements
// changed level: E-divisive means (Matteson and James, 2014), the
// hierarchical divisive search over an energy distance that MongoDB's CI
// and Apache Otava (formerly Hunter) use, with each split kept only when a
// permutation test calls it significant, then change points smaller than a
// least magnitude merged away; and, given the direction that is worse, a
// one-sided test for a step among the newest points, which E-divisive
// finds least well, with a permutation test of its own and a share of
// the significance level. It knows nothing of llmgate's metrics or
// files: a series is a slice of float64 in time order, and the answer is
// indices with segment medians and p-values. It never formats.
package changepoint
