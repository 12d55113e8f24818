package main

import (
	"bytes"
	"testing"

	"github.com/llmgate/llmgate/internal/telemetry"
)

func TestAnswer(t *testing.T) {
	var out, errb bytes.Buffer
	if code := answer(telemetry.GPUQueryArgs, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	rs, err := telemetry.ParseGPUReadings(out.String())
	if err != nil || len(rs) != 2 || rs[0].UtilPercent != 87 || *rs[1].PowerWatts != 250 {
		t.Errorf("readings %+v, %v", rs, err)
	}
	out.Reset()
	if code := answer([]string{"--query-gpu=name", "--format=csv,noheader"}, &out, &errb); code == 0 || out.Len() != 0 {
		t.Errorf("name query: exit %d, output %q", code, out.String())
	}
}
