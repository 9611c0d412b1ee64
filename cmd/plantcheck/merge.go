package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const mergeHelp = "Combine the verdicts of several 'plantcheck proxy' processes, one per instance of a\n" +
	"service, into one: their summary.json files are read (each checked against the\n" +
	"published schema), their counts and failures put together, and the verdict\n" +
	"decided anew, as if one proxy had seen all their traffic. It prints the verdict\n" +
	"and, with --report-dir, writes the same five reports.\n\n" +
	"Exit status: as 'plantcheck proxy' for the combined traffic: 0, 1, or 2 (also when\n" +
	"a file cannot be read, does not follow the schema, or is not a proxy's)."

func cmdMerge(_ context.Context, c cli, cfg *config.Merge, files []string) int {
	if len(files) == 0 {
		return c.fail("no summary.json named: give the files of the proxies to merge")
	}
	var vs []*verdict.Verdict
	for _, name := range files {
		v, err := history.ReadFile(name)
		if err == nil && v.Driver != verdict.Proxy {
			err = fmt.Errorf("written by 'plantcheck %s', not by 'plantcheck proxy': only proxies' verdicts are merged", evidence.Text(string(v.Driver)))
		}
		if err != nil {
			return c.fail("%s: %v", evidence.Text(name), err)
		}
		vs = append(vs, v)
	}
	m, err := history.Merge(vs, cfg.Strict, cfg.StrictClients)
	if err != nil {
		return c.fail("%v (the files, in order: %s)", err, evidence.Text(fmt.Sprint(files)))
	}
	if err := m.WriteText(c.stdout, verdict.TextOptions{}); err != nil {
		return c.fail("write the verdict: %v", err)
	}
	if cfg.ReportDir != "" {
		if err := m.WriteFiles(cfg.ReportDir); err != nil {
			return c.fail("%v", err)
		}
	}
	return m.ExitCode
}
