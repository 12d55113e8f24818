package trace

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShippedSlices reads the slices of public traces the repository ships
// and checks what is known of them.
func TestShippedSlices(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "traces")
	az, err := ReadFile(filepath.Join(dir, "azure-llm-2023-conv-240.csv"), FormatAzure)
	if err != nil {
		t.Fatal(err)
	}
	// the first rows: 2023-11-16 18:15:46.6805900,374,44 and 18:15:50.9951690,396,109
	if len(az.Rows) != 240 || az.Rows[0].Line != 2 || az.Rows[0].Input != 374 || az.Rows[0].Output != 44 ||
		az.Rows[1].At != 4314579*time.Microsecond || az.Reordered != 0 {
		t.Errorf("azure slice: %d rows, first %+v, second %+v, %d reordered", len(az.Rows), az.Rows[0], az.Rows[1], az.Reordered)
	}
	s := Summarize(az.Rows, 0)
	if s.Shared != 0 || s.Reusable != 0 || s.Span.Round(time.Millisecond) != 67966*time.Millisecond {
		t.Errorf("azure slice: %+v", s)
	}
	mc, err := ReadFile(filepath.Join(dir, "mooncake-fast25-conversation-200.jsonl"), FormatMooncake)
	if err != nil {
		t.Fatal(err)
	}
	s = Summarize(mc.Rows, DefaultBlockSize)
	// Mooncake's ids stand for 512-token blocks: a prompt of n tokens has ceil(n/512)
	for _, r := range mc.Rows {
		if want := (r.Input + 511) / 512; len(r.Hashes) != want {
			t.Errorf("line %d: %d hash ids for %d tokens, want %d", r.Line, len(r.Hashes), r.Input, want)
		}
	}
	if s.Requests != 200 || s.Span != 72*time.Second || s.Shared <= s.Reusable || s.Reusable <= 0 {
		t.Errorf("mooncake slice: %+v", s)
	}
	if !strings.HasPrefix(mc.Digest, "sha256:") {
		t.Errorf("digest %q", mc.Digest)
	}
}
