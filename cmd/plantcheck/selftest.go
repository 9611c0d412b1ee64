package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/selftest"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

const selftestHelp = "Prove the suite: run it against the bundled reference server, which must pass,\n" +
	"and against every mutant (the reference with one deliberate defect), each of\n" +
	"which must fail on a rule it breaks. Prints the table and the mutation score,\n" +
	"and, when every mutant ran on the whole suite, the strength measured beside\n" +
	"the figures this build carries (every verdict's), saying when they differ.\n" +
	"With --seeds N every server runs under N fresh seeds, and a mutant counts as\n" +
	"caught only if caught under each; a miss names its seed and the rerun that\n" +
	"replays it (--seed S). Every run must agree, rule by rule, with its own\n" +
	"recording judged again; with --via-proxy each suite runs through a plantcheck\n" +
	"proxy in front of its server instead, and must agree with the proxy's verdict.\n\n" +
	"Exit status: 0 the reference passes, every mutant is caught, under every\n" +
	"seed, and every run agrees, 1 otherwise, 2 when the self-test cannot run as\n" +
	"configured."

func cmdSelftest(ctx context.Context, c cli, flags *config.SelftestFlags, _ []string) int {
	cfg := flags.Resolve()
	if err := cfg.Validate(); err != nil {
		return c.fail("%v", err)
	}
	tuneGC(c.getenv)
	ms := mutants.All
	if cfg.Mutants != nil {
		ms = nil
		for _, name := range cfg.Mutants {
			m, ok := mutants.Lookup(strings.TrimSpace(name))
			if !ok {
				return c.fail("no mutant %q (see --list)", name)
			}
			ms = append(ms, m)
		}
	}
	if cfg.List {
		for _, m := range ms {
			fmt.Fprintf(c.stdout, "%-26s %-70s %s\n", m.Name, m.Defect, rules.JoinIDs(m.Rules, " "))
		}
		return exitOK
	}
	res, err := selftest.Run(ctx, selftest.Config{Mutants: ms, Tags: cfg.Tags, Parallel: cfg.Parallel, Without: cfg.Without,
		Seeds: cfg.Seeds, Seed: cfg.Seed, ViaProxy: cfg.ViaProxy})
	if err != nil {
		return c.fail("%v", err)
	}
	res.Write(c.stdout)
	// A whole self-test measures the suite's strength: beside the figures
	// this build carries, and every verdict it writes, it says whether
	// they still hold.
	switch f, err := res.Strength(buildinfo.Version()); {
	case errors.Is(err, selftest.ErrPart):
	case err != nil:
		fmt.Fprintf(c.stdout, "suite strength: not measured: %v\n", err)
	default:
		carried, _ := strength.Current()
		selftest.WriteStrength(c.stdout, f, carried)
	}
	if !res.OK() {
		return exitFailed
	}
	return exitOK
}
