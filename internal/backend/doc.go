// Package backend brings the server under test up and down: a container
// started with testcontainers-go, an external endpoint, or the in-process
// simulator. The runner starts one per group of runs sharing a server config.
// (It was package target: a name that is also the build-output folder of
// Cargo, Maven and sbt, which many contributors' global ignores hide, and
// that named several other things in llmgate.)
package backend
