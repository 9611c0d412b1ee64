package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/docgen"
)

func cmdDocs(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "docs", "--out DIR",
		"Render the features as documentation of the Plant Store API, rule by rule, with\n"+
			"each rule's level and source in the spec: "+docgen.MarkdownFile+" and "+docgen.HTMLFile+" (self-contained).")
	out := fs.String("out", "", "folder to write the documentation into (created if missing)")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(c.stderr, "plantcheck docs: --out is required")
		fs.Usage()
		return exitCannotRun
	}
	paths, err := docgen.Write(*out)
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck docs: %v\n", err)
		return exitFailed
	}
	for _, p := range paths {
		fmt.Fprintln(c.stdout, p)
	}
	return exitOK
}
