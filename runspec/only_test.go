package runspec

import "testing"

func TestMatchesOnly(t *testing.T) {
	for _, tc := range []struct {
		only           []string
		name, scenario string
		want           bool
	}{
		{[]string{"chat"}, "chat", "chat", true},
		{[]string{"sweep"}, "sweep[concurrency=4]", "sweep", true},                // by scenario
		{[]string{"sweep[concurrency=4]"}, "sweep[concurrency=4]", "sweep", true}, // brackets are literal
		{[]string{"sweep[*=16]"}, "sweep[concurrency=16]", "sweep", true},
		{[]string{"sweep[*=16]"}, "sweep[concurrency=4]", "sweep", false},
		{[]string{"*chat*"}, "long_chat_run", "long_chat_run", true},
		{[]string{"ch*t"}, "chart", "chart", true},
		{[]string{"ch*t"}, "chats", "chats", false},
		{[]string{"a", "b"}, "b", "b", true},
		{nil, "chat", "chat", false},
		{[]string{"cha"}, "chat", "chat", false},
	} {
		if got := MatchesOnly(tc.only, tc.name, tc.scenario); got != tc.want {
			t.Errorf("MatchesOnly(%q, %q, %q) = %v, want %v", tc.only, tc.name, tc.scenario, got, tc.want)
		}
	}
}
