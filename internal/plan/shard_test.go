package plan

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}, "1024/1024": {1024, 1024}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"":                       "want i/n",
		"2":                      "want i/n",
		"0/2":                    "i must be between 1 and n (2)",
		"3/2":                    "i must be between 1 and n (2)",
		"-1/2":                   "i must be between 1 and n",
		"1/0":                    "n must be between 1 and 1024",
		"1/1025":                 "n must be between 1 and 1024",
		"a/b":                    "whole numbers",
		"1.5/2":                  "whole numbers",
		"1/2/3":                  "whole numbers",
		"99999999999999999999/2": "whole numbers",
	} {
		_, err := ParseShard(in)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseShard(%q) error %v, want one containing %q", in, err, msg)
		}
	}
}
