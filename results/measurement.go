package results

// CacheReset says whether the server's prefix cache was reset before a run,
// so that the run did not measure cache hits left by an earlier one.
type CacheReset struct {
	// Done is true when the server confirmed the reset.
	Done bool `json:"done"`
	// Reason says why it was not done (the server does not serve the
	// endpoint, refused, ...); empty when Done.
	Reason string `json:"reason,omitempty"`
}
