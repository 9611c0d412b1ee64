// Command measure runs the whole self-test (the reference and every
// shipped mutant) and writes the suite's strength, as package strength
// carries it, to -out: go generate ./internal/strength. Run it again
// whenever a mutant is added, removed, or names other rules; a test of
// package strength fails until then.
//
// With -check it writes nothing: it measures, compares with -out and
// exits 1 when the figures differ (strength.Differ: the suite, the
// mutants, their rules and their catching; never the day or the build
// that measured them, which differ on every run). The release runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/selftest"
	"github.com/plantcheck/plantcheck/internal/strength"
)

func main() {
	out := flag.String("out", "strength.json", "the file to write (with -check, to compare with)")
	version := flag.String("version", "", "the version to record as the selftest's (default: this build's)")
	check := flag.Bool("check", false, "write nothing: exit 1 when the figures measured differ from -out's")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := measure(ctx, *out, *version, *check); err != nil {
		fmt.Fprintf(os.Stderr, "measure: %v\n", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, out, version string, check bool) error {
	if version == "" {
		version = buildinfo.Version()
	}
	res, err := selftest.Run(ctx, selftest.Config{})
	if err != nil {
		return fmt.Errorf("selftest: %w", err)
	}
	f, err := res.Strength(version)
	if err != nil {
		res.Write(os.Stderr)
		return fmt.Errorf("%w: nothing written", err)
	}
	if check {
		b, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		var carried strength.Figures
		if err := json.Unmarshal(b, &carried); err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		if selftest.WriteStrength(os.Stdout, f, &carried) {
			return errors.New(selftest.Stale)
		}
		return nil
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s: suite strength: %s\n", out, f.Line())
	if f.Caught < f.Mutants {
		return fmt.Errorf("%d mutants survived: the figures say so; see plantcheck selftest", f.Mutants-f.Caught)
	}
	return nil
}
