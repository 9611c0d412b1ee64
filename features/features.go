// Package features holds the Gherkin features of the Plant Store API, the
// living documentation of what the API promises, and the catalog of the
// spec's rules that their scenarios encode. Both are embedded in the binary.
//
// Every scenario carries one rule ID tag from the catalog (such as
// @CREATE-200) and the rule's level tag: @must, @should or @open.
package features

import "embed"

// FS holds the feature files, at its root.
//
//go:embed *.feature
var FS embed.FS
