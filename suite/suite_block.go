package suite

import "github.com/hashicorp/hcl/v2"

// suiteBlock is `suite "name" { description = "..." }`.
type suiteBlock struct {
	Description *hcl.Attribute `hcl:"description,optional"`
}
