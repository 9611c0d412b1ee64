package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/docgen"
)

func cmdDocs(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "docs", "--report-dir DIR",
		"Render the documentation of the Plant Store API: its records, from the OpenAPI\n"+
			"document, then the features rule by rule, each rule with its level, its source in\n"+
			"the spec and an example exchange made by running the suite against the bundled\n"+
			"reference: "+docgen.MarkdownFile+" and "+docgen.HTMLFile+" (self-contained, no JavaScript).")
	cfg := config.DefineDocs(fs)
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(c.stderr, "plantcheck docs: %v\n", err)
		fs.Usage()
		return exitCannotRun
	}
	paths, err := docgen.Write(ctx, cfg.ReportDir)
	if err != nil {
		return c.failer("docs")("%v", err)
	}
	for _, p := range paths {
		fmt.Fprintln(c.stdout, p)
	}
	return exitOK
}
