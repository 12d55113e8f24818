package results

// MissingFeature is a server feature llmgate uses that a run's server
// lacked (serverinfo found it missing), and what doing without it cost:
// "/metrics" and "no server.* metrics ...". Text llmgate wrote, but read
// back from a file: reports treat it as untrusted.
type MissingFeature struct {
	Feature string `json:"feature"`
	Cost    string `json:"cost"`
}
