package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmgate/llmgate/internal/compare"
	"github.com/llmgate/llmgate/internal/comparetest"
	"github.com/llmgate/llmgate/internal/history/historytest"
	"github.com/llmgate/llmgate/results"
	"github.com/llmgate/llmgate/untrusted"
)

// fixture makes the results file of entry i of a history: one chat run
// whose median TTFT is ttft ms (and a batch run at a fixed level), measured
// an hour after the previous one, at commit c<i>.
func fixture(i int, ttft float64, status results.Status) *results.File {
	env := results.Environment{GitSHA: untrusted.String(fmt.Sprintf("%07x%033d", 0xc0ffee0+i, i)), GitRef: "refs/heads/main", Model: "m", GPU: "H100"}
	f := comparetest.File(env,
		comparetest.RunSpec{Name: "chat", TTFT: ttft, TPOT: 9, E2EL: 600, OutTokPerSec: 1000, ReqPerSec: 4, CV: 0.2, N: 200, Seed: uint64(i + 1), Status: status},
		comparetest.RunSpec{Name: "batch", TTFT: 300, TPOT: 20, E2EL: 3000, OutTokPerSec: 800, ReqPerSec: 2, CV: 0.2, N: 200, Seed: uint64(1000 + i)},
	)
	f.Suite.Name = "quick"
	f.Created = comparetest.Epoch.Add(time.Duration(i) * time.Hour)
	return f
}

func mustEntry(t *testing.T, f *results.File) *Entry {
	t.Helper()
	e, err := NewEntry(f, AddOptions{Source: "results.json", Added: comparetest.Epoch.Add(1000 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// stores returns a fresh store of each kind (PostgreSQL when the test
// server is there; see testPostgres).
func stores(t *testing.T) map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"dir": func(t *testing.T) Store {
			s, err := Open(context.Background(), filepath.Join(t.TempDir(), "perf-history"), true)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": func(t *testing.T) Store {
			s, err := Open(context.Background(), historytest.Postgres(t), true)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// entryJSON is what a store returned, for comparing stores: the index and
// the results file's bytes.
func entryJSON(t *testing.T, es []*Entry) string {
	t.Helper()
	var b strings.Builder
	for _, e := range es {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		fmt.Fprintf(&b, "\n%d bytes of results, %v\n", len(e.payload), e.results != nil)
	}
	return b.String()
}

func TestStoresAnswerAlike(t *testing.T) {
	ctx := context.Background()
	var added []*Entry
	for i := 0; i < 6; i++ {
		status := results.StatusOK
		if i == 3 {
			status = results.StatusInvalid
		}
		added = append(added, mustEntry(t, fixture(i, 100, status)))
	}
	other := fixture(9, 100, results.StatusOK)
	other.Suite.Name = "other"
	added = append(added, mustEntry(t, other))

	answers := map[string][]string{}
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			for i := len(added) - 1; i >= 0; i-- { // out of order: the store sorts
				if err := s.Add(ctx, added[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Add(ctx, added[2]); !errors.Is(err, ErrExists) {
				t.Errorf("adding an entry twice: %v, want ErrExists", err)
			}
			all, err := s.Entries(ctx, Query{WithResults: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 7 || all[0].ID != added[0].ID || all[6].ID != added[6].ID {
				t.Fatalf("entries %d, order %v", len(all), ids(all))
			}
			for i, e := range all {
				if string(e.payload) != string(added[i].payload) || e.Results() == nil || e.Results().Runs[0].Samples == nil {
					t.Errorf("entry %s: results file not returned as added", e.ID)
				}
			}
			if d := cmp.Diff(entryJSON(t, added), entryJSON(t, all)); d != "" {
				t.Errorf("entries differ from those added (-added +read):\n%s", d)
			}
			quick, err := s.Entries(ctx, Query{Suite: "quick"})
			if err != nil {
				t.Fatal(err)
			}
			if len(quick) != 6 || quick[0].Results() != nil {
				t.Errorf("suite query: %d entries, results loaded %v", len(quick), quick[0].Results() != nil)
			}
			a, err := NewAcceptance("quick", "chat", "ttft.p95", all[4], "octocat", "the new tokenizer is slower, on purpose", comparetest.Epoch.Add(2000*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Accept(ctx, a); err != nil {
				t.Fatal(err)
			}
			if err := s.Accept(ctx, a); !errors.Is(err, ErrExists) {
				t.Errorf("accepting twice: %v", err)
			}
			as, err := s.Acceptances(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]*Acceptance{a}, as); d != "" {
				t.Errorf("acceptances (-want +got):\n%s", d)
			}
			res := Check(all, as, CheckOptions{Tolerances: compare.DefaultConfig().Tolerances})
			answers[name] = []string{entryJSON(t, all), fmt.Sprint(len(res.Series), len(res.All()))}
		})
	}
	if d, p := answers["dir"], answers["postgres"]; d != nil && p != nil {
		if diff := cmp.Diff(d, p); diff != "" {
			t.Errorf("the stores answered differently (-dir +postgres):\n%s", diff)
		}
	}
}

func ids(es []*Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// TestDirStoreTwoWriters adds entries from two goroutines at once, half of
// them the same entries: every entry lands once, each duplicate is
// refused, and no temporary file is left.
func TestDirStoreTwoWriters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "h")
	var entries []*Entry
	for i := 0; i < 8; i++ {
		entries = append(entries, mustEntry(t, fixture(i, 100, results.StatusOK)))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, dups := 0, 0
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := OpenDir(dir, true)
			if err != nil {
				t.Error(err)
				return
			}
			for _, e := range entries {
				err := s.Add(context.Background(), e)
				mu.Lock()
				switch {
				case err == nil:
					added++
				case errors.Is(err, ErrExists):
					dups++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if added != 8 || dups != 8 {
		t.Errorf("%d added and %d refused, want 8 and 8", added, dups)
	}
	s, _ := OpenDir(dir, false)
	got, err := s.Entries(context.Background(), Query{WithResults: true})
	if err != nil || len(got) != 8 {
		t.Fatalf("read back %d entries: %v", len(got), err)
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if strings.HasSuffix(path, ".tmp") {
			t.Errorf("temporary file left: %s", path)
		}
		return nil
	})
}

// TestDirStoreRefusesTampering edits stored files the ways a hostile push
// to the history branch could, and checks each is refused by name.
func TestDirStoreRefusesTampering(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(index map[string]any, results *[]byte)
		want string
	}{
		{"payload edited", func(_ map[string]any, r *[]byte) { *r = []byte(strings.Replace(string(*r), `"ok"`, `"ok" `, 1)) }, "does not match its digest"},
		{"id changed", func(i map[string]any, _ *[]byte) { i["commit"] = "deadbee" }, "does not match its time, commit and digest"},
		{"newer format", func(i map[string]any, _ *[]byte) { i["llmgate_history"] = 7 }, "newer than this llmgate"},
		{"absurd value", func(i map[string]any, _ *[]byte) {
			i["runs"].([]any)[0].(map[string]any)["estimates"].(map[string]any)["ttft.p95"].(map[string]any)["value"] = 1e300
		}, "not a measurement"},
		{"NUL in a name", func(i map[string]any, _ *[]byte) { i["runs"].([]any)[0].(map[string]any)["scenario"] = "a\x00b" }, "NUL"},
		{"bad status", func(i map[string]any, _ *[]byte) { i["runs"].([]any)[0].(map[string]any)["status"] = "great" }, "unknown status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "h")
			s, _ := OpenDir(dir, true)
			e := mustEntry(t, fixture(1, 100, results.StatusOK))
			if err := s.Add(ctx, e); err != nil {
				t.Fatal(err)
			}
			base := filepath.Join(dir, entriesDir, e.Time.Format("2006"), e.Time.Format("01"), e.ID)
			raw, _ := os.ReadFile(base + ".json")
			var index map[string]any
			json.Unmarshal(raw, &index)
			payload, _ := os.ReadFile(base + resultsExt)
			tc.edit(index, &payload)
			raw, _ = json.Marshal(index)
			os.WriteFile(base+".json", raw, 0o644)
			os.WriteFile(base+resultsExt, payload, 0o644)
			_, err := s.Entries(ctx, Query{WithResults: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("read: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestOpenDirErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenDir(filepath.Join(dir, "missing"), false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenDir(file, true); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	s, err := OpenDir(empty, false)
	if err != nil {
		t.Fatalf("an empty directory is an empty history: %v", err)
	}
	if es, err := s.Entries(context.Background(), Query{}); err != nil || len(es) != 0 {
		t.Errorf("empty history: %v %v", es, err)
	}
	newer := filepath.Join(dir, "newer")
	os.Mkdir(newer, 0o755)
	os.WriteFile(filepath.Join(newer, markerName), []byte(`{"format":"llmgate-history","version":9}`), 0o644)
	if _, err := OpenDir(newer, false); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("newer store: %v", err)
	}
}

func TestNewEntry(t *testing.T) {
	f := fixture(2, 100, results.StatusOK)
	f.Runs[1].Status, f.Runs[1].Error = results.StatusFailed, "server died"
	e := mustEntry(t, f)
	if !strings.HasPrefix(e.ID, "20261102T140000Z-c0ffee2-") || len(e.ID) != len("20261102T140000Z-c0ffee2-")+12 {
		t.Errorf("id %q", e.ID)
	}
	chat := e.Run("chat")
	est, ok := chat.Estimates["ttft.p95"]
	if !ok || est.Estimator != "harrell-davis" || est.N != 200 || est.Lo == nil || *est.Lo >= est.Value {
		t.Errorf("ttft.p95 estimate %+v", est)
	}
	if tp := chat.Estimates["throughput.output_tokens"]; tp.Value != 1000 || tp.Lo != nil || tp.Estimator != "summary" {
		t.Errorf("throughput estimate %+v", tp)
	}
	if b := e.Run("batch"); b.Status != results.StatusFailed || len(b.Estimates) != 0 || b.Reasons[0] != "server died" {
		t.Errorf("failed run %+v", b)
	}
	again := mustEntry(t, f)
	if again.ID != e.ID {
		t.Errorf("the same file gave ids %s and %s", e.ID, again.ID)
	}
	f.Suite.Name = ""
	if _, err := NewEntry(f, AddOptions{}); err == nil {
		t.Error("a file without a suite name was accepted")
	}
	// what a results file may not hold is cleaned as the file is written
	// (results.File.Write), so the entry holds none of it either
	f = fixture(2, 100, results.StatusOK)
	f.Runs[0].Name = "chat\x00evil"
	if e, err := NewEntry(f, AddOptions{}); err != nil || e.Run("chatevil") == nil {
		t.Errorf("NUL in a run name: %v", err)
	}
}
