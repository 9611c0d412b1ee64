package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

const compareHelp = "Put the verdicts of several implementations of the API in one table of rules by\n" +
	"implementations: pass, fail, not judged, noted, each failure linked to its block\n" +
	"in the implementation's report.html when one is beside its summary.json. Each\n" +
	"file is checked against the published schema. An implementation is named by\n" +
	"NAME=FILE, else by the target its verdict names; several files of one name are\n" +
	"runs of one implementation, and a rule they disagree on is marked unstable.\n\n" +
	"Without --report-dir it prints the Markdown table (or --format json); with --report-dir DIR it\n" +
	"writes compare.html (a page to publish, no script), compare.md, compare.json and\n" +
	"a badge of each implementation.\n\n" +
	"Exit status: 0 written, 2 when a file cannot be read, does not follow the schema,\n" +
	"or the verdicts judge by different specs. It is a table, not a gate."

func cmdCompare(_ context.Context, c cli, cfg *config.Compare, files []string) int {
	if err := cfg.Validate(); err != nil {
		return c.fail("%v", err)
	}
	if len(files) == 0 {
		return c.fail("no summary.json named: give one of each implementation (NAME=FILE to name it), or several runs of each")
	}
	var in []history.CompareInput
	for _, arg := range files {
		name, file := "", arg
		if n, f, ok := strings.Cut(arg, "="); ok && n != "" && f != "" && !exists(arg) {
			name, file = n, f
		}
		v, err := history.ReadFile(file)
		if err != nil {
			return c.fail("%s: %v", evidence.Text(file), err)
		}
		x := history.CompareInput{Name: cmp.Or(name, v.Target, file), File: file, Verdict: v}
		if cfg.ReportDir != "" {
			x.Report = history.ReportBeside(file, cfg.ReportDir)
		}
		in = append(in, x)
	}
	table, err := history.CompareAll(in)
	if err != nil {
		return c.fail("%v", err)
	}
	if cfg.ReportDir != "" {
		if err := table.WriteFiles(cfg.ReportDir); err != nil {
			return c.fail("%v", err)
		}
		fmt.Fprintf(c.stdout, "plantcheck compare: %d implementations, %d rules: %s, %s, %s and %d badges in %s\n",
			len(table.Implementations), len(table.Rules), history.CompareHTML, history.CompareMD, history.CompareJSON, len(table.Implementations), evidence.Text(cfg.ReportDir))
		return exitOK
	}
	if cfg.Format == "json" {
		err = table.WriteJSON(c.stdout)
	} else {
		err = table.WriteMarkdown(c.stdout, verdict.Quoted)
	}
	if err != nil {
		return c.fail("write: %v", err)
	}
	return exitOK
}

// exists: a summary.json whose path holds "=" is a file, not NAME=FILE.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
