package scenarios

import (
	"testing"

	"github.com/llmgate/llmgate/internal/plan"
	"github.com/llmgate/llmgate/internal/suite"
)

// TestCatalogShards splits every catalog suite into 1 to 4 shards: each run
// in exactly one shard, each server group whole in one, and the same split
// and fingerprint from a second load.
func TestCatalogShards(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, c := range catalog {
		t.Run(c.file, func(t *testing.T) {
			load := func() *plan.Plan {
				s, diags := suite.Load(c.file, suite.Options{Getenv: noEnv})
				if diags.HasErrors() {
					t.Fatalf("%s: %v", c.file, diags)
				}
				return s.Plan()
			}
			a, b := load(), load()
			if a.Fingerprint() != b.Fingerprint() {
				t.Error("two loads have different fingerprints")
			}
			for n := 1; n <= 4; n++ {
				seen := map[string]int{}
				groups := 0
				for i, sh := range a.Split(n) {
					groups += len(sh.Groups)
					var again []string
					for _, r := range b.Shard(plan.Shard{Index: i + 1, Count: n}).Runs() {
						again = append(again, r.Name)
					}
					for j, r := range sh.Runs() {
						seen[r.Name]++
						if j >= len(again) || again[j] != r.Name {
							t.Errorf("n=%d shard %d differs between two loads", n, i+1)
							break
						}
					}
				}
				if groups != len(a.Groups) {
					t.Errorf("n=%d: %d groups in the shards, %d in the plan", n, groups, len(a.Groups))
				}
				for _, r := range a.Runs() {
					if seen[r.Name] != 1 {
						t.Errorf("n=%d: run %s in %d shards", n, r.Name, seen[r.Name])
					}
				}
			}
		})
	}
}
