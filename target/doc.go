// Package target brings the server under test up and down: a container
// started with testcontainers-go, an external endpoint, or the in-process
// simulator. The runner starts one per group of runs sharing a server config.
package target
