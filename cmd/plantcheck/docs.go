package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/docgen"
)

const docsHelp = "Render the documentation of the Plant Store API: its records, from the OpenAPI\n" +
	"document, then the features rule by rule, each rule with its level, its source in\n" +
	"the spec and an example exchange made by running the suite against the bundled\n" +
	"reference: " + docgen.MarkdownFile + " and " + docgen.HTMLFile + " (self-contained, no JavaScript)."

func cmdDocs(ctx context.Context, c cli, cfg *config.Docs, _ []string) int {
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck docs: %v\n", err)
		c.fs.Usage()
		return exitCannotRun
	}
	paths, err := docgen.Write(ctx, cfg.ReportDir)
	if err != nil {
		return c.fail("%v", err)
	}
	for _, p := range paths {
		fmt.Fprintln(c.stdout, p)
	}
	return exitOK
}
