package suite

import (
	"reflect"

	"github.com/hashicorp/hcl/v2"
)

// defaultsBlock is `defaults {...}`: a target, load, workload and goodput
// that every scenario inherits and may override attribute by attribute.
type defaultsBlock struct {
	Target   *hcl.Attribute `hcl:"target,optional"`
	AB       *hcl.Attribute `hcl:"ab,optional"`
	Load     *loadBlock     `hcl:"load,block"`
	Workload *workloadBlock `hcl:"workload,block"`
	Goodput  *goodputBlock  `hcl:"goodput,block"`
	Request  *requestBlock  `hcl:"request,block"`
}

func (l *loader) decodeDefaults(blocks hcl.Blocks) *defaultsBlock {
	defs := &defaultsBlock{}
	for i, b := range blocks {
		if i > 0 {
			l.duplicate(b, blocks[0], "defaults")
			continue
		}
		l.defaultsBody = b.Body
		l.diags = append(l.diags, decodeBody(b.Body, defs)...)
		l.suite.AB = l.abMode(defs.AB)
	}
	return defs
}

// overlay returns base with every field that over sets replaced by over's:
// the way a scenario's block overrides the defaults' attribute by attribute.
// Nested blocks (a load's ramp) are replaced whole.
func overlay[T any](base, over *T) *T {
	if base == nil {
		return over
	}
	if over == nil {
		return base
	}
	out := *base
	ov := reflect.ValueOf(over).Elem()
	o := reflect.ValueOf(&out).Elem()
	for i := 0; i < o.NumField(); i++ {
		if f := ov.Field(i); !f.IsZero() {
			o.Field(i).Set(f)
		}
	}
	return &out
}
