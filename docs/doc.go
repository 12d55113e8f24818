// Package docs holds llmgate's user documentation: the pages beside this
// file, linked from the repository's README. Its tests keep the pages true:
// every ```hcl block must be a suite that validates, and every shell example
// that can run without a GPU, Docker or network runs against the binary
// built from this tree.
package docs
