// Package selftest proves that the suite catches what it claims to catch:
// it runs the suite against the bundled reference server, which must pass,
// and against every mutant of package mutants, each of which must fail and
// be named by one of the rules it breaks. The share of mutants caught is the
// mutation score; anything below 100% is a gap in the suite. Under several
// seeds (Config.Seeds), a mutant counts as caught only if caught under
// every one: a verdict must not depend on the draw.
package selftest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/shell"
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
	// Seeds is how many seeds every server runs under, each drawn fresh
	// and shared by the reference and every mutant; 0 means 1. A mutant
	// is caught only if it is caught under every seed, so that a check
	// which catches it under some draws only is a gap, not a pass.
	Seeds int
	// Seed, when not 0, is the one seed every server runs under (Seeds
	// is then 1): the rerun a miss prints.
	Seed uint64
	// ViaProxy runs the suite through a `plantcheck proxy` in front of
	// each server, and holds the run's verdict to the proxy's, rule by
	// rule, instead of to the run's own recording judged again.
	ViaProxy bool

	// drawSeed draws a fresh seed; nil means config.NewSeed. A test fixes
	// its draws.
	drawSeed func() uint64
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

// Trial is one run of the suite: one server under one seed.
type Trial struct {
	// Seed is the run's seed: it drew the run's values, the token the
	// server issued and the salt of its fresh ids, so that a rerun under
	// it sends what this run sent.
	Seed     uint64
	Failed   []rules.RuleID // every rule the run failed
	ExitCode int            // the run's exit status
	// Verdict is a mutant's run's (empty for the reference's).
	Verdict  Verdict
	Err      error // why the run could not be made
	Duration time.Duration
	// Disagree names each rule whose outcome the run's own recording,
	// judged again from its traffic alone, contradicts, or under
	// Config.ViaProxy the proxy's verdict does (it must be none).
	Disagree []string
	// ProxyFailed, under Config.ViaProxy, is every rule the proxy's
	// verdict failed, from the run's traffic alone.
	ProxyFailed []rules.RuleID
	// The reference's run's scenarios, exchanges and verdict line (zero
	// for a mutant's): a whole report, kept for each of a thousand seeds,
	// would hold gigabytes.
	Scenarios, Exchanges int
	VerdictLine          string
}

// Row is one mutant's line of the table: its runs, one under each seed.
type Row struct {
	Mutant mutants.Mutant
	// Trials are its runs, in the order of Result.Seeds.
	Trials []Trial
}

// Result is a whole self-test.
type Result struct {
	// Seeds are the seeds every server ran under.
	Seeds []uint64
	// Reference is the reference server's runs, in the order of Seeds.
	Reference []Trial
	Rows      []Row
	// cfg is the configuration run, for the reruns printed.
	cfg Config
}

// passes reports whether the reference's run passed, and the proxy it
// went through, if any, failed no rule.
func (t Trial) passes() bool { return t.Err == nil && t.ExitCode == 0 && len(t.ProxyFailed) == 0 }

func count[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

func breaks(m mutants.Mutant, failed []rules.RuleID) bool {
	return slices.ContainsFunc(m.Rules, func(id rules.RuleID) bool { return slices.Contains(failed, id) })
}

func (row Row) caught() int {
	return count(row.Trials, func(t Trial) bool { return t.Verdict == Caught })
}

// Verdict is the mutant's verdict under every seed: caught if caught under
// each, ERROR if some run could not be made, SURVIVED otherwise.
func (row Row) Verdict() Verdict {
	if row.caught() == len(row.Trials) {
		return Caught
	}
	if slices.ContainsFunc(row.Trials, func(t Trial) bool { return t.Verdict == Broken }) {
		return Broken
	}
	return Survived
}

// ReferencePasses reports whether the reference passed under every seed.
func (r *Result) ReferencePasses() bool {
	return len(r.Reference) > 0 && !slices.ContainsFunc(r.Reference, func(t Trial) bool { return !t.passes() })
}

// Disagreements counts the runs whose recording, judged again, contradicts
// the run on some rule.
func (r *Result) Disagreements() int {
	disagrees := func(t Trial) bool { return len(t.Disagree) > 0 }
	n := count(r.Reference, disagrees)
	for _, row := range r.Rows {
		n += count(row.Trials, disagrees)
	}
	return n
}

// Caught is the number of mutants caught under every seed.
func (r *Result) Caught() int {
	return count(r.Rows, func(row Row) bool { return row.Verdict() == Caught })
}

// ProxyCaught is the number of mutants the proxy caught, under
// Config.ViaProxy, under every seed: its verdict failed a rule the mutant
// breaks.
func (r *Result) ProxyCaught() int {
	return count(r.Rows, func(row Row) bool {
		return !slices.ContainsFunc(row.Trials, func(t Trial) bool { return !breaks(row.Mutant, t.ProxyFailed) })
	})
}

// Score is the mutation score, the share of mutants caught, in percent.
func (r *Result) Score() float64 {
	if len(r.Rows) == 0 {
		return 0
	}
	return 100 * float64(r.Caught()) / float64(len(r.Rows))
}

// OK reports whether the reference passed and every mutant was caught,
// under every seed, and every run agreed with its recording.
func (r *Result) OK() bool {
	return r.ReferencePasses() && r.Caught() == len(r.Rows) && r.Disagreements() == 0
}

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
	if cfg.Seeds <= 0 || cfg.Seed != 0 {
		cfg.Seeds = 1
	}
	if cfg.drawSeed == nil {
		cfg.drawSeed = config.NewSeed
	}
	return cfg
}

// Run runs the self-test: the reference and every mutant under each seed.
// The runs go at once, at most cfg.Parallel at a time, each against its
// own server; the rows keep the order of cfg.Mutants, their runs the
// order of the seeds.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	res := &Result{Seeds: []uint64{cfg.Seed}, Rows: make([]Row, len(cfg.Mutants)), cfg: cfg}
	if cfg.Seed == 0 {
		res.Seeds = make([]uint64, cfg.Seeds)
		for i := range res.Seeds {
			res.Seeds[i] = cfg.drawSeed()
		}
	}
	res.Reference = make([]Trial, len(res.Seeds))
	for i, m := range cfg.Mutants {
		res.Rows[i] = Row{Mutant: m, Trials: make([]Trial, len(res.Seeds))}
	}
	sem := make(chan struct{}, cfg.Parallel)
	var wg sync.WaitGroup
	trial := func(into *Trial, m *mutants.Mutant, seed uint64) {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			start := time.Now()
			*into = Trial{Seed: seed}
			if m != nil {
				into.Verdict = Broken
			}
			into.Err = into.run(ctx, cfg, m)
			into.Duration = time.Since(start)
		})
	}
	for s, seed := range res.Seeds {
		trial(&res.Reference[s], nil, seed)
		for i := range cfg.Mutants {
			trial(&res.Rows[i].Trials[s], &cfg.Mutants[i], seed)
		}
	}
	wg.Wait()
	for _, t := range res.Reference {
		if errors.Is(t.Err, run.ErrConfig) {
			// The mutants' runs failed on the same configuration.
			return nil, t.Err
		}
	}
	return res, ctx.Err()
}

// drawn is what a seed draws for a server beside the suite's own values:
// the token of 2n characters it issues and the salt of the run's fresh
// ids, so that a rerun under the seed sends what the run sent.
func drawn(seed uint64, n int) (token string, idSalt uint64) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:8], seed)
	copy(key[8:], "plantcheck selftest")
	r := rand.NewChaCha8(key)
	return reference.TokenFrom(r, n), r.Uint64() | 1
}

func failed(rs []verdict.Rule) (ids []rules.RuleID) {
	for _, r := range rs {
		if r.Outcome == verdict.Fail {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// run serves the reference (m nil) or a mutant on a loopback port and runs
// the suite against it under t.Seed.
func (t *Trial) run(ctx context.Context, cfg Config, m *mutants.Mutant) error {
	rc := config.Run{Tags: cfg.Tags, Without: cfg.Without, Seed: t.Seed}
	// The reference's token is 80 characters, long enough for every
	// credential near it the suite derives (a change past bcrypt's 72
	// bytes included), as reference.StartLoopback's; a mutant's 26, unless
	// its defect shows only past 72 bytes. Each is base64url with a '-'
	// and a '_', so that every near miss, base64's other alphabet among
	// them, is made from it.
	n := 40
	if m == nil {
		rc.Reference = true
	} else {
		n, rc.Concurrency = 13, 4
		if m.LongToken {
			n = 48
		}
		if m.Slow {
			rc.Timeout = cfg.Timeout
		}
	}
	token, salt := drawn(t.Seed, n)
	srv, err := reference.New(reference.Config{Token: token})
	if err != nil {
		return err
	}
	var h http.Handler = srv
	if m != nil {
		h = m.Wrap(srv, token)
	}
	url, stop, err := reference.Loopback(h)
	if err != nil {
		return err
	}
	defer stop()
	rc.BaseURL, rc.Token = url, token
	var stopProxy func() (*verdict.Verdict, error)
	if cfg.ViaProxy {
		if rc.BaseURL, stopProxy, err = startProxy(url); err != nil {
			return err
		}
	} else {
		// The run's recording, in a folder of its own.
		dir, err := os.MkdirTemp("", "plantcheck-selftest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		rc.HAR = filepath.Join(dir, "run.har")
	}
	if rc, err = rc.Complete(); err != nil {
		return err
	}
	rep, err := run.Run(ctx, run.Config(rc), run.Options{Output: io.Discard, IDSalt: salt})
	switch {
	case stopProxy != nil:
		pv, perr := stopProxy()
		if err == nil && perr != nil {
			err = perr
		}
		if err == nil {
			t.Disagree, t.ProxyFailed = contradictions(rep.Model().Rules, pv.Rules, "proxy"), failed(pv.Rules)
		}
	case err == nil:
		t.Disagree, err = disagreements(rc.HAR, rep.Model().Rules)
	}
	if err != nil {
		return err
	}
	t.Failed, t.ExitCode = failed(rep.Model().Rules), rep.ExitCode()
	if m == nil {
		t.Scenarios, t.Exchanges, t.VerdictLine = rep.Model().Counts.Scenarios, rep.Model().Counts.Exchanges, rep.VerdictLine()
	} else if t.Verdict = Survived; breaks(*m, t.Failed) {
		t.Verdict = Caught
	}
	return nil
}

// rerun is the command that runs the reference, and m when not nil, again
// under seed: what the run sent is sent again.
func (cfg Config) rerun(m *mutants.Mutant, seed uint64) string {
	s := "plantcheck selftest"
	if cfg.ViaProxy {
		s += " --via-proxy"
	}
	if m != nil {
		s += " --mutant " + m.Name
	}
	s += fmt.Sprintf(" --seed %d", seed)
	if cfg.Tags != "" {
		s += " --tags " + shell.Quote(cfg.Tags)
	}
	if len(cfg.Without) > 0 {
		s += " --without " + shell.Quote(strings.Join(cfg.Without, ","))
	}
	return s
}

// Write prints the reference's verdict, the table, and the score; each
// miss under a seed names the seed and the rerun that replays it.
func (r *Result) Write(w io.Writer) {
	n, via := len(r.Seeds), r.cfg.ViaProxy
	r.writeReference(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	timeHead, proxyHead := "TIME", ""
	if n > 1 {
		timeHead = "MEAN TIME"
	}
	if via {
		proxyHead = "PROXY\t"
	}
	fmt.Fprintf(tw, "MUTANT\tDEFECT\tCAUGHT BY\tVERDICT\t%s%s\n", proxyHead, timeHead)
	for _, row := range r.Rows {
		proxyCell := ""
		if via {
			proxyCell = row.failedCell(func(t Trial) []rules.RuleID { return t.ProxyFailed }, "-") + "\t"
		}
		var sum time.Duration
		for _, t := range row.Trials {
			sum += t.Duration
		}
		mean := sum / time.Duration(max(len(row.Trials), 1))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", row.Mutant.Name, row.Mutant.Defect, row.caughtBy(), row.verdictCell(),
			proxyCell, mean.Round(time.Millisecond))
	}
	tw.Flush()
	under, through := "", ""
	if n > 1 {
		under = fmt.Sprintf(" under each of %d seeds", n)
	}
	other, agrees, agreement := "its recording, judged again,", "rule by rule with their own recording judged again", "every run agrees with its recording judged again"
	if via {
		through = " by the suite through the proxy"
		other, agrees, agreement = "the proxy's verdict", "with the proxy's verdict, rule by rule", "every run through the proxy agrees with the proxy's verdict"
	}
	fmt.Fprintf(w, "\nmutation score: %d of %d mutants caught%s%s (%.0f%%)\n", r.Caught(), len(r.Rows), through, under, r.Score())
	if via {
		fmt.Fprintf(w, "the proxy alone, from the suite's traffic, catches %d of %d mutants%s (fails a rule each breaks)\n", r.ProxyCaught(), len(r.Rows), under)
	}
	for _, row := range r.Rows {
		for _, t := range row.Trials {
			switch t.Verdict {
			case Caught:
			case Broken:
				fmt.Fprintf(w, "gap: mutant %q (%s) could not be run under seed %d: %v; rerun: %s\n", row.Mutant.Name, row.Mutant.Defect,
					t.Seed, t.Err, r.cfg.rerun(&row.Mutant, t.Seed))
			default:
				fmt.Fprintf(w, "gap: mutant %q (%s) is not caught by %s under seed %d; rerun: %s\n", row.Mutant.Name, row.Mutant.Defect,
					rules.JoinIDs(row.Mutant.Rules, " or "), t.Seed, r.cfg.rerun(&row.Mutant, t.Seed))
			}
		}
	}
	contradiction := func(server string, m *mutants.Mutant, t Trial) {
		if len(t.Disagree) > 0 {
			fmt.Fprintf(w, "contradiction: %s under seed %d: %s disagrees with its run: %s; rerun: %s\n",
				server, t.Seed, other, strings.Join(t.Disagree, "; "), r.cfg.rerun(m, t.Seed))
		}
	}
	for _, t := range r.Reference {
		contradiction("the reference", nil, t)
	}
	for _, row := range r.Rows {
		for _, t := range row.Trials {
			contradiction(fmt.Sprintf("mutant %q", row.Mutant.Name), &row.Mutant, t)
		}
	}
	runs := (len(r.Rows) + 1) * n
	fmt.Fprintf(w, "one verdict per answer: %d of %d runs agree %s\n", runs-r.Disagreements(), runs, agrees)
	switch {
	case !r.OK():
		fmt.Fprintln(w, "SELFTEST: FAIL")
	case n > 1:
		fmt.Fprintf(w, "SELFTEST: PASS: under each of %d seeds, the reference passes, every mutant is caught, and %s\n", n, agreement)
	default:
		fmt.Fprintf(w, "SELFTEST: PASS: the reference passes, every mutant is caught, and %s\n", agreement)
	}
}

// writeReference prints the reference's verdict: that it passes, or each
// seed it failed under, with the rules it failed and the rerun.
func (r *Result) writeReference(w io.Writer) {
	n := len(r.Seeds)
	ref := "reference server"
	if r.cfg.ViaProxy {
		ref = "reference server, through the proxy"
	}
	if r.ReferencePasses() {
		lo, hi := r.Reference[0].Exchanges, r.Reference[0].Exchanges
		for _, t := range r.Reference {
			lo, hi = min(lo, t.Exchanges), max(hi, t.Exchanges)
		}
		exchanges := fmt.Sprintf("%d exchanges", lo)
		if lo != hi {
			exchanges = fmt.Sprintf("%d to %d exchanges", lo, hi)
		}
		if n == 1 {
			fmt.Fprintf(w, "%s: passes (%d scenarios, %s)\n", ref, r.Reference[0].Scenarios, exchanges)
		} else {
			fmt.Fprintf(w, "%s: passes under each of %d seeds (%d scenarios, %s a run)\n", ref, n, r.Reference[0].Scenarios, exchanges)
		}
		return
	}
	if n > 1 {
		fmt.Fprintf(w, "%s: FAILED under %d of %d seeds\n", ref, count(r.Reference, func(t Trial) bool { return !t.passes() }), n)
	}
	for _, t := range r.Reference {
		switch {
		case t.passes():
			continue
		case t.Err != nil:
			fmt.Fprintf(w, "%s: could not run under seed %d: %v\n", ref, t.Seed, t.Err)
		default:
			fmt.Fprintf(w, "%s: FAILED under seed %d: %s\n", ref, t.Seed, t.VerdictLine)
			for _, id := range t.Failed {
				fmt.Fprintf(w, "  %s failed\n", id)
			}
			for _, id := range t.ProxyFailed {
				fmt.Fprintf(w, "  %s failed in the proxy's verdict\n", id)
			}
		}
		fmt.Fprintf(w, "  rerun: %s\n", r.cfg.rerun(nil, t.Seed))
	}
}

// verdictCell is the row's verdict, and under several seeds how many of
// them caught it.
func (row Row) verdictCell() string {
	v, n := row.Verdict(), len(row.Trials)
	switch {
	case n == 1:
		return string(v)
	case v == Caught:
		return fmt.Sprintf("caught %d of %d seeds", n, n)
	}
	return fmt.Sprintf("%s: caught %d of %d seeds", v, row.caught(), n)
}

// caughtBy names the rules of the mutant that failed under some seed, and
// counts the other rules that failed with them; a run that could not be
// made shows its error instead.
func (row Row) caughtBy() string {
	for _, t := range row.Trials {
		if t.Err != nil {
			return t.Err.Error()
		}
	}
	return row.failedCell(func(t Trial) []rules.RuleID { return t.Failed }, "none of "+rules.JoinIDs(row.Mutant.Rules, " "))
}

// failedCell names the rules of the mutant among those failed, of each
// trial, under some seed (none when there are none), and counts the other
// rules failed.
func (row Row) failedCell(failed func(Trial) []rules.RuleID, none string) string {
	var own, other []rules.RuleID
	for _, t := range row.Trials {
		for _, id := range failed(t) {
			list := &other
			if slices.Contains(row.Mutant.Rules, id) {
				list = &own
			}
			if !slices.Contains(*list, id) {
				*list = append(*list, id)
			}
		}
	}
	s := rules.JoinIDs(own, " ")
	if len(own) == 0 {
		s = none
	}
	switch n := len(other); {
	case n == 1:
		s += " (+1 other rule)"
	case n > 1:
		s += fmt.Sprintf(" (+%d other rules)", n)
	}
	return s
}
