package run

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// delayed answers each request after d, as a distant server does.
func delayed(d time.Duration) func(http.Handler, string) http.Handler {
	return func(h http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(d)
			h.ServeHTTP(w, r)
		})
	}
}

// BenchmarkDistantServer measures a default run (default flags: the
// default concurrency) against a conformant server that takes 0, 10 or 50
// ms to answer each request; the figures are in the README.
func BenchmarkDistantServer(b *testing.B) {
	for _, ms := range []int{0, 10, 50} {
		for _, conc := range []int{1, DefaultConcurrency} {
			b.Run(fmt.Sprintf("delay=%dms/concurrency=%d", ms, conc), func(b *testing.B) {
				url, token := startTarget(b, delayed(time.Duration(ms)*time.Millisecond))
				for b.Loop() {
					rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Concurrency: conc}, Options{Output: io.Discard})
					if err != nil {
						b.Fatal(err)
					}
					if rep.ExitCode() != 0 {
						b.Fatalf("exit %d", rep.ExitCode())
					}
				}
			})
		}
	}
}

// TestVerdictDoesNotDependOnConcurrency runs one seed at the two ends of
// concurrency, one scenario at a time and the default (every interleaving
// a concurrency between them can meet, 16 at once can meet too), against
// the reference and mutants of several kinds: each rule's outcome, and its
// failures, are the same at both. The run at the default is the shared run
// of its target (several tests read it), whose seed, drawn as the CLI
// draws one, the run at 1 takes, against a fresh target of the same kind.
// (How many scenarios judged a rule may differ where two scenarios send one
// fixed id to a service that refuses a stored id: a failing generated case
// shrunk, its id towards 0, and BODY-ID-RANGE's id of 0; the second is
// inconclusive, whichever it is.)
func TestVerdictDoesNotDependOnConcurrency(t *testing.T) {
	t.Parallel()
	targets := []string{sharedReference, "drop-tag", "html-escape", "any-scheme", "token-bcrypt-72", "lenient-json", "crash-500"}
	for _, name := range targets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outcomes := func(rep *Report) map[rules.RuleID]string {
				got := map[rules.RuleID]string{}
				for _, v := range rep.Model().Rules {
					got[v.ID] = fmt.Sprintf("%s, %d failures", v.Outcome, v.Failures)
				}
				return got
			}
			atDefault, _, _ := shared(t, name)
			if c := atDefault.Config.Concurrency; c != DefaultConcurrency {
				t.Fatalf("the shared run went at concurrency %d, want the default %d", c, DefaultConcurrency)
			}
			cfg, stop, err := sharedTarget(name)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			seed := atDefault.Config.Seed
			cfg.Concurrency, cfg.Seed = 1, seed
			atOne, err := runWith(context.Background(), cfg, Options{Output: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			want, got := outcomes(atOne), outcomes(atDefault)
			for id, w := range want {
				if got[id] != w {
					t.Errorf("seed %d: at concurrency %d %s is %q, at concurrency 1 %q", seed, DefaultConcurrency, id, got[id], w)
				}
			}
		})
	}
}

// TestAStatefulServerGetsTheSameVerdictEveryRun: a service that keeps what
// it accepted fails the same rules on a second run, with the same seed (a
// printed rerun), as on its first, though the first stored every plant it
// accepted: a request the suite expects refused carries a fresh name and a
// fresh id, even where its id is of the wrong type, and a valid create
// whose fixed id a first run stored, refused with the status the target
// refuses a stored id with (409 too), is inconclusive.
func TestAStatefulServerGetsTheSameVerdictEveryRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mutant      string
		uniqueNames bool // the store refuses a name it has stored
	}{
		{mutant: "dedup-name-before-auth"},            // answers a stored name with 200 before any check
		{mutant: "accept-string-id"},                  // stores "42" as 42: a later "42" is a duplicate, refused
		{mutant: "truncate-fraction-id"},              // stores 1.5 as 1
		{mutant: "duplicate-409"},                     // refuses a stored id with 409: a fixed id a first run stored is inconclusive, not a failure
		{mutant: "stringify-name", uniqueNames: true}, // stores the name 42 as "42": a later 42 is a duplicate, refused
	}
	for _, tt := range tests {
		t.Run(tt.mutant, func(t *testing.T) {
			t.Parallel()
			var store reference.Store // the reference's own
			if tt.uniqueNames {
				store = &uniqueNames{}
			}
			const token = "t0ken-stateful-0123456789"
			ref, err := reference.New(reference.Config{Token: token, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(mutantWrap(tt.mutant)(ref, token))
			t.Cleanup(srv.Close)
			url := srv.URL
			var first []rules.RuleID
			for i := range 2 {
				rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Seed: 5}, Options{Output: io.Discard})
				if err != nil {
					t.Fatal(err)
				}
				var failed []rules.RuleID
				for _, v := range rep.Model().Rules {
					if v.Outcome == verdict.Fail {
						failed = append(failed, v.ID)
					}
				}
				if i == 0 {
					first = failed
				} else if !slices.Equal(failed, first) {
					t.Errorf("the second run failed %v, the first %v", failed, first)
				}
			}
		})
	}
}

// mutantWrap is the wrapper of the named mutant ("": none).
func mutantWrap(name string) func(http.Handler, string) http.Handler {
	if name == "" {
		return nil
	}
	for _, m := range mutants.All {
		if m.Name == name {
			return m.Wrap
		}
	}
	return nil
}
