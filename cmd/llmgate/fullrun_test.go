package main

import "testing"

// fullRunOnly skips a test under -short: it runs gates against real-time
// servers for several seconds (and its verdicts need a machine that is not
// overloaded), so it belongs to the full run (make test), not the fast
// loop.
func fullRunOnly(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("real-time gate against loopback servers: full run only (make test)")
	}
}
