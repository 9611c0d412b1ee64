package selftest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestEveryMutantIsCaught runs the whole self-test: the reference passes,
// every mutant fails on a rule it breaks (exit 1 when that rule is a MUST),
// and every MUST rule of the catalog is the catching rule of some mutant;
// under two fresh seeds, or one under the race detector, which makes every
// run some times slower (CI runs `selftest --seeds 32`).
func TestEveryMutantIsCaught(t *testing.T) {
	t.Parallel()
	if n := len(mutants.All); n < 25 {
		t.Errorf("%d mutants, want at least 25", n)
	}
	// Every mutant under one fresh seed, each `go test` a new one: the
	// seeds' bookkeeping is TestSeedsNameTheMiss's, and CI's `plantcheck
	// selftest --seeds 32` looks for a mutant that only some draws catch.
	seeds, sample := 1, sweep()
	res, err := Run(context.Background(), Config{Seeds: seeds, Mutants: sample})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := len(res.Seeds); got != seeds {
		t.Errorf("%d seeds, want %d", got, seeds)
	}
	for _, ref := range res.Reference {
		if !ref.passes() {
			t.Fatalf("the reference does not pass under seed %d: %v, failed %v", ref.Seed, ref.Err, ref.Failed)
		}
		if len(ref.Disagree) > 0 {
			t.Errorf("the reference's run under seed %d and its recording judged again disagree: %v", ref.Seed, ref.Disagree)
		}
	}
	broken := map[rules.RuleID]bool{} // MUST rules some mutant was caught by
	for _, row := range res.Rows {
		t.Run(row.Mutant.Name, func(t *testing.T) {
			for _, run := range row.Trials {
				// One answer, one verdict per rule, whichever driver saw it.
				if len(run.Disagree) > 0 {
					t.Errorf("seed %d: the run and its recording judged again disagree: %v", run.Seed, run.Disagree)
				}
				if run.Verdict != Caught {
					t.Errorf("seed %d: verdict %s (err %v); failed rules %v, want one of %v", run.Seed, run.Verdict, run.Err, run.Failed, row.Mutant.Rules)
					continue
				}
				breaksMust := false
				for _, id := range row.Mutant.Rules {
					r, ok := rules.Lookup(id)
					if !ok {
						t.Errorf("mutant names rule %s, which is not in the catalog", id)
						continue
					}
					if r.Level == rules.Must && slices.Contains(run.Failed, id) {
						broken[id] = true
						breaksMust = true
					}
				}
				if want := map[bool]int{true: 1, false: 0}[breaksMust]; run.ExitCode != want {
					t.Errorf("seed %d: exit code = %d, want %d (failed %v)", run.Seed, run.ExitCode, want, run.Failed)
				}
			}
		})
	}
	for _, r := range rules.Catalog {
		if sample == nil && r.Level == rules.Must && !broken[r.ID] {
			t.Errorf("MUST rule %s is broken by no mutant that the suite catches with it", r.ID)
		}
	}
	if got := res.Score(); got != 100 {
		t.Errorf("score = %.1f, want 100", got)
	}
	if !res.OK() {
		t.Error("OK() = false, want true")
	}
}

// sweep is the mutants a test's sweep runs: every one (nil), or under the
// race detector, which makes every run several times slower, every ninth,
// which still runs the self-test's concurrency under the detector; the
// whole sweep runs without it.
func sweep() []mutants.Mutant {
	if !raceEnabled {
		return nil
	}
	return every(9, 0)
}

// every is every step-th mutant, from the one at offset.
func every(step, offset int) []mutants.Mutant {
	var sample []mutants.Mutant
	for i := offset; i < len(mutants.All); i += step {
		sample = append(sample, mutants.All[i])
	}
	return sample
}

// TestSurvivorIsNamed proves the self-test can fail: with the scenario that
// catches a mutant left out, the mutant survives, the score drops, and the
// table names it as a gap.
func TestSurvivorIsNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mutant, tags string
		wantVerdict        Verdict
		wantOut            []string
	}{
		{"caught", "drop-tag", "@CREATE-TAG", Caught, []string{"drop-tag", "CREATE-TAG", "caught", "1 of 1 mutants caught (100%)", "SELFTEST: PASS"}},
		{"its scenario left out", "drop-tag", "@CREATE-NAME,@CREATE-NO-TAG", Survived, []string{"SURVIVED", "none of CREATE-TAG", `gap: mutant "drop-tag"`, "0 of 1 mutants caught (0%)", "SELFTEST: FAIL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, ok := mutants.Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			res, err := Run(context.Background(), Config{Mutants: []mutants.Mutant{m}, Tags: tt.tags})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := res.Rows[0].Verdict(); got != tt.wantVerdict {
				t.Errorf("verdict = %s, want %s (failed %v)", got, tt.wantVerdict, res.Rows[0].Trials[0].Failed)
			}
			if got, want := res.OK(), tt.wantVerdict == Caught; got != want {
				t.Errorf("OK() = %v, want %v", got, want)
			}
			var out bytes.Buffer
			res.Write(&out)
			for _, s := range tt.wantOut {
				if !strings.Contains(out.String(), s) {
					t.Errorf("table lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// TestEachNewCheckIsNeeded: for each check that finds the bugs real servers
// have (a wrong echo judged at MUST in every scenario, credentials near the
// issued one, the catalog of hostile strings, JSON that only a lenient
// reader takes, the suite's own habits varied), the self-test catches a
// mutant with the check and lets it through without it.
func TestEachNewCheckIsNeeded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		check, mutant string
		tags          string   // the scenarios run with the check, and without it unless leftOut is set
		leftOut       string   // the tag expression that leaves the check out
		without       []string // or the check left out by name
	}{
		{"the echo is a MUST in a SHOULD scenario", "omitempty-tag", "@BODY-TAG-ANY", "", []string{config.WithoutMustEcho}},
		{"credentials near the issued one", "token-prefix", "@area-auth", "@area-auth && ~@near-miss", nil},
		{"the token with more after it", "token-split-space", "@area-auth", "@area-auth && ~@after-the-token", nil},
		// token-last-word (Fields, then the last word) is caught by AUTH-SCHEME's
		// tab as well; Python's replace is caught by the scheme before it alone.
		{"the token with a word before it", "token-replace-scheme", "@area-auth", "@area-auth && ~@after-the-token", nil},
		{"a replay of an accepted create", "replay-cache-before-auth", "@area-auth", "@area-auth && ~@request-state", nil},
		{"a replay under its Idempotency-Key", "idempotency-before-auth", "@area-auth", "@area-auth && ~@request-state", nil},
		{"a create with a stored id", "dedup-id-before-auth", "@area-auth", "@area-auth && ~@request-state", nil},
		{"the catalog of hostile strings", "strip-nul", "@catalog", "~@catalog", nil},
		{"JSON only a lenient reader takes", "trailing-data", "@lenient-json", "~@lenient-json", nil},
		{"the suite's habits varied: framing", "needs-content-length", "@varied", "~@varied", nil},
		{"the suite's habits varied: Accept", "needs-accept-json", "@varied,@MEDIA-ACCEPT", "~@varied && ~@MEDIA-ACCEPT", nil},
		{"HTTP's equal spellings: the type's case", "media-type-split-exact", "@MEDIA-REQUEST-PARAMS", "@MEDIA-REQUEST-PARAMS && ~@http-equal", nil},
		{"HTTP's equal spellings: a quoted charset", "media-type-lowercase-param-only", "@MEDIA-REQUEST-PARAMS", "@MEDIA-REQUEST-PARAMS && ~@http-equal", nil},
		{"HTTP's equal spellings: a parameter's name", "media-type-param-name-case", "@MEDIA-REQUEST-PARAMS", "@MEDIA-REQUEST-PARAMS && ~@http-equal", nil},
	}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			t.Parallel()
			m, ok := mutants.Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			// The mutant's runs alone: TestEveryMutantIsCaught proves the
			// reference passes, and that the whole suite catches the
			// mutant; with the check, its scenarios alone must catch it
			// (more scenarios fail no fewer rules), and without it the
			// whole suite but the check must not.
			if row := mutantRow(t, m, Config{Tags: tt.tags}); row.Verdict != Caught || row.ExitCode != 1 {
				t.Errorf("with the check: %s, exit %d (failed %v), want caught and exit 1", row.Verdict, row.ExitCode, row.Failed)
			}
			tags := tt.tags
			if tt.leftOut != "" {
				tags = tt.leftOut
			}
			if row := mutantRow(t, m, Config{Tags: tags, Without: tt.without}); row.Verdict != Survived || row.ExitCode != 0 {
				t.Errorf("without the check: %s, exit %d (failed %v), want it to survive with exit 0", row.Verdict, row.ExitCode, row.Failed)
			}
		})
	}
}

// TestSchemeCaseIsShould: a service that refuses the scheme written bearer
// keeps the letter of the spec, so the self-test catches it at SHOULD
// level: exit 0, and 1 only under --strict; without the scenarios of
// AUTH-SCHEME-CASE it passes unseen.
func TestSchemeCaseIsShould(t *testing.T) {
	t.Parallel()
	m, ok := mutants.Lookup("bearer-case-sensitive")
	if !ok {
		t.Fatal("no mutant bearer-case-sensitive")
	}
	for _, tc := range []struct {
		tags    string
		verdict Verdict
	}{
		{"@area-auth", Caught},
		{"@area-auth && ~@AUTH-SCHEME-CASE", Survived},
	} {
		if row := mutantRow(t, m, Config{Tags: tc.tags}); row.Verdict != tc.verdict || row.ExitCode != 0 {
			t.Errorf("%s: %s, exit %d (failed %v), want %s and exit 0", tc.tags, row.Verdict, row.ExitCode, row.Failed, tc.verdict)
		}
	}
}

// mutantRow runs the suite against m alone, as Run does with cfg, under a
// fresh seed, and fails the test when the run could not be made.
func mutantRow(t *testing.T, m mutants.Mutant, cfg Config) Trial {
	t.Helper()
	run := Trial{Seed: config.NewSeed(), Verdict: Broken}
	if err := run.run(t.Context(), cfg.withDefaults(), &m); err != nil {
		t.Fatal(err)
	}
	return run
}
