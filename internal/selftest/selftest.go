// Package selftest proves that the suite catches what it claims to catch:
// it runs the suite against the bundled reference server, which must pass,
// and against every mutant of package mutants, each of which must fail and
// be named by one of the rules it breaks. The share of mutants caught is the
// mutation score; anything below 100% is a gap in the suite.
package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// Config configures a self-test.
type Config struct {
	// Mutants to run; nil means mutants.All.
	Mutants []mutants.Mutant
	// Tags restricts every run to some rules (a godog tag expression).
	Tags string
	// Parallel is how many runs go at once, the reference's among them;
	// 0 means runtime.GOMAXPROCS: a run is mostly CPU (the suite, the
	// judge and the server under test in one process).
	Parallel int
	// Without names checks to leave out of every run (config.Removable):
	// the mutants that then survive are those the checks catch.
	Without []string
	// Timeout is the exchange time limit for mutants marked Slow; others
	// get run.DefaultTimeout. 0 means 300ms.
	Timeout time.Duration
}

// Verdict is what became of one mutant.
type Verdict string

const (
	// Caught: the run failed one of the rules the mutant breaks.
	Caught Verdict = "caught"
	// Survived: the run passed, or failed only other rules.
	Survived Verdict = "SURVIVED"
	// Broken: the run could not be made at all.
	Broken Verdict = "ERROR"
)

// Row is one mutant's line of the table.
type Row struct {
	Mutant   mutants.Mutant
	Failed   []rules.RuleID // every rule the run failed
	ExitCode int            // the run's exit status
	Verdict  Verdict
	Err      error // why the run could not be made (Broken)
	Duration time.Duration
	// Disagree names each rule whose outcome the run's own recording,
	// judged again from its traffic alone, contradicts (it must be none).
	Disagree []string
}

// Result is a whole self-test.
type Result struct {
	// Reference is the run against the reference server.
	Reference    *run.Report
	ReferenceErr error
	// ReferenceDisagree: as Row.Disagree, for the reference's run.
	ReferenceDisagree []string
	Rows              []Row
}

// Disagreements counts the runs whose recording, judged again, contradicts
// the run on some rule.
func (r *Result) Disagreements() int {
	n := min(len(r.ReferenceDisagree), 1)
	for _, row := range r.Rows {
		n += min(len(row.Disagree), 1)
	}
	return n
}

// Caught is the number of mutants caught.
func (r *Result) Caught() int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == Caught {
			n++
		}
	}
	return n
}

// Score is the mutation score, the share of mutants caught, in percent.
func (r *Result) Score() float64 {
	if len(r.Rows) == 0 {
		return 0
	}
	return 100 * float64(r.Caught()) / float64(len(r.Rows))
}

// OK reports whether the reference passed and every mutant was caught.
func (r *Result) OK() bool {
	return r.ReferenceErr == nil && r.Reference != nil && r.Reference.ExitCode() == 0 &&
		r.Caught() == len(r.Rows) && r.Disagreements() == 0
}

// withDefaults is cfg with every zero setting given its default.
func (cfg Config) withDefaults() Config {
	if cfg.Mutants == nil {
		cfg.Mutants = mutants.All
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.GOMAXPROCS(0)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 300 * time.Millisecond
	}
	return cfg
}

// Run runs the self-test. The reference and the mutants run at once, at
// most cfg.Parallel at a time, each against its own server; the rows keep
// the order of cfg.Mutants.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	res := &Result{Rows: make([]Row, len(cfg.Mutants))}
	sem := make(chan struct{}, cfg.Parallel)
	var wg sync.WaitGroup
	sem <- struct{}{}
	wg.Go(func() {
		defer func() { <-sem }()
		res.Reference, res.ReferenceDisagree, res.ReferenceErr = runReference(ctx, cfg)
	})
	for i, m := range cfg.Mutants {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			res.Rows[i] = runMutant(ctx, m, cfg)
		})
	}
	wg.Wait()
	if errors.Is(res.ReferenceErr, run.ErrConfig) {
		// The mutants' runs failed on the same configuration.
		return nil, res.ReferenceErr
	}
	return res, ctx.Err()
}

// runReference runs the suite against the reference server, on a loopback
// port.
func runReference(ctx context.Context, cfg Config) (*run.Report, []string, error) {
	url, token, stop, err := reference.StartLoopback()
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	file, done, err := recording()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	rc, err := config.Run{BaseURL: url, Token: token, Reference: true, Tags: cfg.Tags, Without: cfg.Without, HAR: file}.Complete()
	if err != nil {
		return nil, nil, err
	}
	rep, err := run.Run(ctx, run.Config(rc), run.Options{Output: io.Discard})
	if err != nil {
		return rep, nil, err
	}
	dis, err := disagreements(file, rep.Rules)
	return rep, dis, err
}

// runMutant serves one mutant on a loopback port and runs the suite
// against it.
func runMutant(ctx context.Context, m mutants.Mutant, cfg Config) Row {
	start := time.Now()
	row := Row{Mutant: m, Verdict: Broken}
	// base64url with a '-' and a '_', so that every near miss, base64's
	// other alphabet among them, is made from it.
	token := reference.RandomToken(13)
	if m.LongToken {
		token = reference.RandomToken(48)
	}
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		row.Err = err
		return row
	}
	url, stop, err := reference.Loopback(m.Wrap(ref, token))
	if err != nil {
		row.Err = err
		return row
	}
	defer stop()

	file, done, err := recording()
	if err != nil {
		row.Err = err
		return row
	}
	defer done()
	rc := config.Run{BaseURL: url, Token: token, Tags: cfg.Tags, Concurrency: 4, Without: cfg.Without, HAR: file}
	if m.Slow {
		rc.Timeout = cfg.Timeout
	}
	rc, err = rc.Complete()
	if err != nil {
		row.Err = err
		return row
	}
	rep, err := run.Run(ctx, run.Config(rc), run.Options{Output: io.Discard})
	if err == nil {
		row.Disagree, err = disagreements(file, rep.Rules)
	}
	row.Duration = time.Since(start)
	if err != nil {
		row.Err = err
		return row
	}
	for _, v := range rep.Rules {
		if v.Outcome == verdict.Fail {
			row.Failed = append(row.Failed, v.ID)
		}
	}
	row.ExitCode = rep.ExitCode()
	row.Verdict = Survived
	if slices.ContainsFunc(m.Rules, func(id rules.RuleID) bool { return slices.Contains(row.Failed, id) }) {
		row.Verdict = Caught
	}
	return row
}

// Write prints the reference's verdict, the table, and the score.
func (r *Result) Write(w io.Writer) {
	switch {
	case r.ReferenceErr != nil:
		fmt.Fprintf(w, "reference server: could not run: %v\n", r.ReferenceErr)
	case r.Reference.ExitCode() != 0:
		fmt.Fprintf(w, "reference server: FAILED: %s\n", r.Reference.VerdictLine())
		for _, v := range r.Reference.Rules {
			if v.Outcome == verdict.Fail {
				fmt.Fprintf(w, "  %s failed\n", v.ID)
			}
		}
	default:
		fmt.Fprintf(w, "reference server: passes (%d scenarios, %d exchanges)\n",
			r.Reference.Counts.Total, r.Reference.Counts.Exchanges)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tDEFECT\tCAUGHT BY\tVERDICT\tTIME")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Mutant.Name, row.Mutant.Defect, row.caughtBy(), row.Verdict,
			row.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmutation score: %d of %d mutants caught (%.0f%%)\n", r.Caught(), len(r.Rows), r.Score())
	for _, row := range r.Rows {
		if row.Verdict != Caught {
			fmt.Fprintf(w, "gap: mutant %q (%s) is not caught by %s\n", row.Mutant.Name, row.Mutant.Defect,
				rules.JoinIDs(row.Mutant.Rules, " or "))
		}
	}
	if len(r.ReferenceDisagree) > 0 {
		fmt.Fprintf(w, "contradiction: the reference's recording, judged again, disagrees with its run: %s\n", strings.Join(r.ReferenceDisagree, "; "))
	}
	for _, row := range r.Rows {
		if len(row.Disagree) > 0 {
			fmt.Fprintf(w, "contradiction: mutant %q's recording, judged again, disagrees with its run: %s\n", row.Mutant.Name, strings.Join(row.Disagree, "; "))
		}
	}
	fmt.Fprintf(w, "one verdict per answer: %d of %d runs agree rule by rule with their own recording judged again\n",
		len(r.Rows)+1-r.Disagreements(), len(r.Rows)+1)
	if r.OK() {
		fmt.Fprintln(w, "SELFTEST: PASS: the reference passes, every mutant is caught, and every run agrees with its recording judged again")
	} else {
		fmt.Fprintln(w, "SELFTEST: FAIL")
	}
}

// caughtBy names the rules of the mutant that failed, and counts the other
// rules that failed with them.
func (row Row) caughtBy() string {
	if row.Err != nil {
		return row.Err.Error()
	}
	var own []rules.RuleID
	for _, id := range row.Failed {
		if slices.Contains(row.Mutant.Rules, id) {
			own = append(own, id)
		}
	}
	s := rules.JoinIDs(own, " ")
	if len(own) == 0 {
		s = "none of " + rules.JoinIDs(row.Mutant.Rules, " ")
	}
	switch n := len(row.Failed) - len(own); {
	case n == 1:
		s += " (+1 other rule)"
	case n > 1:
		s += fmt.Sprintf(" (+%d other rules)", n)
	}
	return s
}
