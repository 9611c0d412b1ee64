package main

import (
	"context"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const diffHelp = "Compare two verdicts (summary.json files, each checked against the published\n" +
	"schema): per rule and per scenario, what is newly failing, fixed, still failing\n" +
	"(and whether its evidence changed), newly not judged. Two verdicts judged by\n" +
	"different specs are refused; different plantcheck versions are compared, and\n" +
	"said, since their scenarios may differ.\n\n" +
	"Exit status: 1 on a regression (a MUST rule, or with --strict a SHOULD rule,\n" +
	"newly failing, failing in a new way, or newly not judged), 0 otherwise, 2 when a\n" +
	"file cannot be read, does not follow the schema, or the two cannot be compared."

func cmdDiff(_ context.Context, c cli, cfg *config.Diff, files []string) int {
	if err := cfg.Validate(); err != nil {
		return c.fail("%v", err)
	}
	if len(files) != 2 {
		return c.fail("give two summary.json files, the old and the new (%d given)", len(files))
	}
	var vs [2]*verdict.Verdict
	for i, name := range files {
		v, err := history.ReadFile(name)
		if err != nil {
			return c.fail("%s: %v", evidence.Text(name), err)
		}
		vs[i] = v
	}
	d, err := history.Compare(vs[0], vs[1], files[0], files[1], cfg.Strict)
	if err != nil {
		return c.fail("%v", err)
	}
	switch cfg.Format {
	case "markdown":
		err = d.WriteMarkdown(c.stdout, verdict.Quoted)
	case "json":
		err = d.WriteJSON(c.stdout)
	default:
		err = d.WriteText(c.stdout)
	}
	if err != nil {
		return c.fail("write the diff: %v", err)
	}
	return d.ExitCode
}
