package suite

import "github.com/hashicorp/hcl/v2"

// rootSchema is the top level of a suite file. Each block type is decoded by
// the struct in its own file (suite_block.go, variable.go, server.go, ...).
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "suite", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "server", LabelNames: []string{"name"}},
		{Type: "endpoint", LabelNames: []string{"name"}},
		{Type: "simulator", LabelNames: []string{"name"}},
		{Type: "defaults"},
		{Type: "scenario", LabelNames: []string{"name"}},
		{Type: "gate"},
	},
}
