// Package features holds the Gherkin features of the Plant Store API, the
// living documentation of what the API promises, embedded in the binary.
// The catalog of the spec's rules that their scenarios encode is package
// spec/rules, beside the document.
//
// Every scenario carries one rule ID tag from the catalog (such as
// @CREATE-200) and the rule's level tag: @must, @should or @open.
package features

import "embed"

// FS holds the feature files, at its root.
//
//go:embed *.feature
var FS embed.FS

// Paths gives the feature paths a run gives godog, in the order it starts
// their scenarios: the size probes first, then every feature (godog reads
// a file once). The probe of just under 1 MiB is the run's longest
// exchange by far (the body is built, sent, read by the service, echoed
// and judged): started first, it runs beside the rest instead of after
// them, and a whole run against the bundled reference takes about 45 ms
// less (docs/benchmarks.md, 2026-11-24, fourth session).
func Paths() []string { return []string{"request_size.feature", "."} }
