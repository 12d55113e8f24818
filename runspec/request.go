package runspec

// Request is the shape every request of a run takes beyond what the
// workload writes: fields merged into each JSON body and headers sent with
// each request (a suite's request block).
type Request struct {
	// ExtraBody is the members of a JSON object, without its braces, in
	// the order they are sent: `"temperature":0.7,"top_p":0.9`. The suite
	// encodes it once and refuses the members llmgate writes itself; empty
	// for none.
	ExtraBody []byte
	// Headers are sent with every request, in this order; their names
	// are canonical (textproto.CanonicalMIMEHeaderKey) and none is one
	// llmgate sets itself.
	Headers []Header
}

// Header is one HTTP header of Request.
type Header struct {
	Name, Value string
	// Secret says the value is a credential by its name (Authorization,
	// X-Api-Key, Cookie): it is masked wherever llmgate writes it.
	Secret bool
}
