package words

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 entries"}, {1, "1 entry"}, {2, "2 entries"}, {-1, "-1 entries"}} {
		if got := Count(c.n, "entry", "entries"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if Pick(1, "run", "runs") != "run" || Pick(3, "run", "runs") != "runs" {
		t.Error("Pick")
	}
}
