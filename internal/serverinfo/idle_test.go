package serverinfo

import (
	"bufio"
	"context"
	"net"
	"testing"
	"time"
)

// TestWaitCloseStoppedAtOnce stops a watch before its wait begins, as a
// run that ends at once stops it: the wait must end then, not at its
// limit. The limit's deadline was once set after the stop's, which undid
// a stop that came between the two and held runner.Run for the whole
// limit (10 minutes in CI).
func TestWaitCloseStoppedAtOnce(t *testing.T) {
	for i := range 50 {
		client, server := net.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan bool, 1)
		go func() {
			_, closed, _ := waitClose(ctx, client, bufio.NewReader(client), time.Hour)
			done <- closed
		}()
		select {
		case closed := <-done:
			if closed {
				t.Fatalf("try %d: a stopped watch says the server closed the connection", i)
			}
		case <-time.After(30 * time.Second): // a bound on failure, not a wait for success
			t.Fatalf("try %d: the stopped watch is still waiting after 30 s (its limit is an hour)", i)
		}
		server.Close()
	}
}
