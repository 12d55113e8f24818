// Package event holds the events the runner reports as it works (a plan
// started, a server starting and ready, a run started, each request done,
// a run finished...) and Progress, what receives them. It is a leaf: the
// runner reports through it and the renderers (package progress) read it,
// so that rendering progress links neither the runner, the targets nor a
// container library.
package event
