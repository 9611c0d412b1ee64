package selftest

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// ErrPart is Strength's error for a self-test of part of the suite or of
// the mutants: its figures would say less than the whole suite is worth.
var ErrPart = errors.New("the self-test ran part of the suite or of the mutants: it measures no strength")

// Strength is the suite's strength this self-test measured, as package
// strength carries it, recorded as measured today by plantcheck version.
// Only a whole self-test measures it (every mutant, no --tags, no
// --without: ErrPart otherwise), and only one whose reference passed and
// whose every run could be made.
func (r *Result) Strength(version string) (*strength.Figures, error) {
	if r.cfg.Tags != "" || len(r.cfg.Without) > 0 || !slices.EqualFunc(r.cfg.Mutants, mutants.All, func(a, b mutants.Mutant) bool { return a.Name == b.Name }) {
		return nil, ErrPart
	}
	// Figures of a suite that fails the reference measure nothing.
	if !r.ReferencePasses() {
		return nil, errors.New("the reference does not pass")
	}
	f := &strength.Figures{
		Measured:   time.Now().UTC().Format(time.DateOnly),
		Plantcheck: version,
		Suite:      verdict.SuiteDigest(),
	}
	for _, row := range r.Rows {
		for _, t := range row.Trials {
			if t.Err != nil {
				return nil, fmt.Errorf("mutant %s: could not run: %w", row.Mutant.Name, t.Err)
			}
		}
		f.Each = append(f.Each, strength.Mutant{Name: row.Mutant.Name, Rules: row.Mutant.Rules, Caught: row.Verdict() == Caught})
	}
	f.Tally()
	return f, nil
}

// Stale is the line that says the carried figures are not those measured.
const Stale = "the carried figures are stale: run go generate ./internal/strength"

// WriteStrength prints the strength a self-test measured beside carried,
// the figures this build carries, and, when they differ, Stale and how.
// It reports whether they differ.
func WriteStrength(w io.Writer, measured, carried *strength.Figures) (stale bool) {
	fmt.Fprintf(w, "suite strength measured: %s\n", measured.Line())
	if carried == nil {
		fmt.Fprintf(w, "suite strength carried: none\n%s\n", Stale)
		return true
	}
	fmt.Fprintf(w, "suite strength carried:  %s\n", carried.Line())
	diff := strength.Differ(carried, measured)
	if len(diff) == 0 {
		fmt.Fprintln(w, "the carried figures are those measured")
		return false
	}
	fmt.Fprintln(w, Stale)
	for _, d := range diff {
		fmt.Fprintf(w, "  %s\n", d)
	}
	return true
}
