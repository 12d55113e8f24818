package suite

import (
	"strings"
	"testing"
)

func TestWhyMissingGPU(t *testing.T) {
	if got := whyMissing([]string{"gpu.util.mean", "gpu.power.max"}); !strings.Contains(got, "gpus") || strings.Count(got, ";") != 0 {
		t.Errorf("whyMissing(gpu.*) = %q, want one reason naming gpus", got)
	}
}
