package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
)

func cmdVerify(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "verify", "DIR",
		"Check, offline, that the conformance statement a run, proxy or judge wrote into\n"+
			"its report folder (DIR/conformance.intoto.json, an in-toto Statement v1) and the\n"+
			"reports beside it agree: the sha256 of summary.json, junit.xml and report.html,\n"+
			"the verdict, the exit status and every rule's outcome. The suite and the\n"+
			"OpenAPI document it names must be the ones this plantcheck carries; when they\n"+
			"are not, it says which plantcheck version made the statement. It checks no\n"+
			"signature: see docs/reports.md.\n\n"+
			"Exit status: 0 the statement holds, 1 it does not (each difference is named),\n"+
			"2 it could not be checked (a file missing, not JSON, not a plantcheck statement).")
	dirs, code, ok := parseArgs(c, fs, args)
	if !ok {
		return code
	}
	if len(dirs) != 1 {
		fmt.Fprintf(c.stderr, "plantcheck verify: give one report folder (%d given)\n%s\n", len(dirs), flagsHint(fs))
		return exitCannotRun
	}
	res, err := history.Verify(dirs[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck verify: %s\n", evidence.Text(err.Error()))
		if !errors.Is(err, history.ErrCannotCheck) {
			fmt.Fprintln(c.stderr, "plantcheck verify: could not check")
		}
		return exitCannotRun
	}
	res.WriteText(c.stdout)
	if !res.Holds() {
		return exitFailed
	}
	return exitOK
}
