package load

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/llmgate/llmgate/results"
)

// pipeConn returns a timedConn over one end of a pipe and the other end.
func pipeConn(t *testing.T) (*timedConn, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &timedConn{Conn: a}, b
}

func TestTimedConnWriteTime(t *testing.T) {
	tc, peer := pipeConn(t)
	go io.Copy(io.Discard, peer)
	if _, ok := tc.wrote(); ok {
		t.Fatal("a new connection reports a write time")
	}
	before := time.Now()
	tc.arm()
	if _, err := tc.Write([]byte("first")); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	first, ok := tc.wrote()
	if !ok || first.Before(before) || first.After(after) {
		t.Fatalf("write time %v (ok %v) is not within the first write [%v, %v]", first, ok, before, after)
	}
	// later writes of the same request keep the first one's time
	if _, err := tc.Write([]byte("second")); err != nil {
		t.Fatal(err)
	}
	if again, _ := tc.wrote(); !again.Equal(first) {
		t.Errorf("write time moved to %v after a second write, want the first's %v", again, first)
	}
	tc.arm()
	if _, ok := tc.wrote(); ok {
		t.Error("arm did not forget the last write time")
	}
}

func TestSSEReaderStampsFromConnRead(t *testing.T) {
	tc, peer := pipeConn(t)
	floor := time.Now()
	go peer.Write([]byte("data: one\n\ndata: two\n\n"))
	s := newSSEReader(tc, 4096)
	s.stampFrom(tc, floor)
	data, at, err := s.next()
	if err != nil || string(data) != "one" {
		t.Fatalf("next = %q, %v", data, err)
	}
	read, ok := tc.read()
	if !ok || !at.Equal(read) {
		t.Errorf("event time %v, want the end of the socket read %v (ok %v)", at, read, ok)
	}
	// the second event came in the same read: same arrival time
	if _, at2, err := s.next(); err != nil || !at2.Equal(read) {
		t.Errorf("second event time %v (err %v), want %v", at2, err, read)
	}

	// reads before the floor belong to an earlier request: scan time instead
	go peer.Write([]byte("data: three\n\n"))
	s.reset(tc)
	if _, _, err := s.next(); err != nil {
		t.Fatal(err)
	}
	late := time.Now()
	go peer.Write([]byte("data: four\n\n"))
	s.reset(tc)
	s.stampFrom(tc, late.Add(time.Hour))
	_, at, err = s.next()
	if err != nil || at.Before(late) {
		t.Errorf("event time %v (err %v): a read before the floor was used", at, err)
	}
}

// TestClientSendTimeIsSocketWrite checks that a record's send time is when
// the request started to leave on its connection, not when do was called.
func TestClientSendTimeIsSocketWrite(t *testing.T) {
	f := newFakeServer(t)
	cl, err := newClient(f.URL(), "", 1, time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.close()
	if err := cl.pool.fill(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	tc := cl.pool.ready[0].timedConn
	origin := time.Now()
	req := bodyMaker{model: "m", ignoreEOS: true}.completion([]int{1, 2, 3}, 4)
	var rec results.Record
	cl.do(context.Background(), req, origin, &rec)
	if !rec.OK() {
		t.Fatalf("error: %s (%s)", rec.Error, rec.ErrorKind)
	}
	wrote, ok := tc.wrote()
	if !ok || rec.Sent != wrote.Sub(origin) {
		t.Errorf("sent at %v, want the socket write at %v (ok %v)", rec.Sent, wrote.Sub(origin), ok)
	}
	read, _ := tc.read()
	if end := rec.Sent + rec.E2EL; end <= rec.Sent || end > read.Sub(origin) {
		t.Errorf("last chunk at %v, want after the send %v and no later than the last socket read %v", end, rec.Sent, read.Sub(origin))
	}
}
