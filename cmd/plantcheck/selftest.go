package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/internal/selftest"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

func cmdSelftest(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "selftest", "[flags]",
		"Prove the suite: run it against the bundled reference server, which must pass,\n"+
			"and against every mutant (the reference with one deliberate defect), each of\n"+
			"which must fail on a rule it breaks. Prints the table and the mutation score.\n\n"+
			"Exit status: 0 the reference passes and every mutant is caught, 1 otherwise.")
	only := fs.String("mutant", "", "run only these mutants (names, comma-separated)")
	list := fs.Bool("list", false, "list the mutants and the rules each breaks, and run nothing")
	parallel := fs.Int("parallel", 2, "runs at once")
	tags := fs.String("tags", "", "restrict every run to some rules (a godog tag expression)")
	without := fs.String("without", "", "leave these checks out of every run, to see what they catch ("+strings.Join(steps.Removable, ", ")+")")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	tuneGC(c.getenv)
	ms := mutants.All
	if *only != "" {
		ms = nil
		for _, name := range strings.Split(*only, ",") {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				fmt.Fprintf(c.stderr, "plantcheck selftest: no mutant %q (see --list)\n", name)
				return exitCannotRun
			}
			ms = append(ms, m)
		}
	}
	if *list {
		for _, m := range ms {
			fmt.Fprintf(c.stdout, "%-26s %-70s %s\n", m.Name, m.Defect, rules.JoinIDs(m.Rules, " "))
		}
		return exitOK
	}
	var leaveOut []string
	if *without != "" {
		leaveOut = strings.Split(*without, ",")
	}
	res, err := selftest.Run(ctx, selftest.Config{Mutants: ms, Tags: *tags, Parallel: *parallel, Without: leaveOut})
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck selftest: %v\n", err)
		return exitCannotRun
	}
	res.Write(c.stdout)
	if !res.OK() {
		return exitFailed
	}
	return exitOK
}
