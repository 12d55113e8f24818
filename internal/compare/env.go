package compare

import (
	"fmt"

	"github.com/llmgate/llmgate/results"
)

// envDiff lists the environment attributes that decide comparability and
// warns about each that differs between two known values.
func envDiff(base, cur *results.File) ([]EnvField, []error) {
	b, c := base.Environment, cur.Environment
	fields := []EnvField{
		{Name: "image", Baseline: b.Image, Current: c.Image},
		{Name: "image digest", Baseline: b.ImageDigest, Current: c.ImageDigest},
		{Name: "vLLM version", Baseline: b.VLLMVersion, Current: c.VLLMVersion},
		{Name: "GPU", Baseline: b.GPU, Current: c.GPU},
		{Name: "model", Baseline: b.Model, Current: c.Model},
		{Name: "target kind", Baseline: b.TargetKind, Current: c.TargetKind},
		{Name: "git commit", Baseline: b.GitSHA, Current: c.GitSHA},
	}
	var warns []error
	oneJob := base.AB != nil && cur.AB != nil // the sides differ on purpose
	for i := range fields {
		f := &fields[i]
		f.Differs = f.Baseline != "" && f.Current != "" && f.Baseline != f.Current
		// A different commit is the point of comparing; a different image
		// digest follows from a different image and needs no second warning.
		if !oneJob && f.Differs && f.Name != "git commit" && !(f.Name == "image digest" && fields[0].Differs) {
			warns = append(warns, fmt.Errorf("environment differs: %s %q in the baseline, %q now", f.Name, f.Baseline, f.Current))
		}
	}
	return fields, warns
}
