// Command measure runs the whole self-test (the reference and every
// shipped mutant) and writes the suite's strength, as package strength
// carries it, to -out: go generate ./internal/strength. Run it again
// whenever a mutant is added, removed, or names other rules; a test of
// package strength fails until then.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/internal/selftest"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

func main() {
	out := flag.String("out", "strength.json", "the file to write")
	version := flag.String("version", "", "the version to record as the selftest's (default: this build's)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := measure(ctx, *out, *version); err != nil {
		fmt.Fprintf(os.Stderr, "measure: %v\n", err)
		os.Exit(1)
	}
}

func measure(ctx context.Context, out, version string) error {
	if version == "" {
		version = buildinfo.Version()
	}
	res, err := selftest.Run(ctx, selftest.Config{})
	if err != nil {
		return fmt.Errorf("selftest: %w", err)
	}
	// Figures of a suite that fails the reference measure nothing.
	if !res.ReferencePasses() {
		res.Write(os.Stderr)
		return fmt.Errorf("the reference does not pass: nothing written")
	}
	f := strength.Figures{
		Measured:   time.Now().UTC().Format(time.DateOnly),
		Plantcheck: version,
		Suite:      verdict.SuiteDigest(),
	}
	for _, row := range res.Rows {
		for _, t := range row.Trials {
			if t.Err != nil {
				return fmt.Errorf("mutant %s: could not run: %w", row.Mutant.Name, t.Err)
			}
		}
		f.Each = append(f.Each, strength.Mutant{Name: row.Mutant.Name, Rules: row.Mutant.Rules, Caught: row.Verdict() == selftest.Caught})
	}
	f.Tally()
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
