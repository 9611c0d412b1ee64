package steps

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestStepPatternsCompiledOncePerProcess: a second suite in the same
// process (selftest runs one per mutant) reuses the first one's compiled
// patterns, and every pattern is anchored at both ends, so that one step's
// text cannot match another's pattern by a part of it.
func TestStepPatternsCompiledOncePerProcess(t *testing.T) {
	newSuite := func() *Suite {
		s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: "t", Client: &http.Client{}, Validator: validator()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := newSuite().stepDefs(), newSuite().stepDefs()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("the suites have %d and %d steps", len(a), len(b))
	}
	seen := map[string]bool{}
	for i := range a {
		p := a[i].pattern
		if compiled(p) != compiled(b[i].pattern) {
			t.Errorf("pattern %s was compiled again for the second suite", p)
		}
		if seen[p] {
			t.Errorf("pattern %s is registered twice", p)
		}
		seen[p] = true
		if p[0] != '^' || p[len(p)-1] != '$' {
			t.Errorf("pattern %s is not anchored at both ends", p)
		}
	}
}

// TestAnUnknownRuleIsADefect: a failure that cites a rule the catalog lacks
// (a renamed or mistyped ID) makes the scenario an error of the suite; it
// is never laid to the scenario's own rule, which would blame a rule that
// was not broken.
func TestAnUnknownRuleIsADefect(t *testing.T) {
	s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: "t0ken-of-the-test", Client: &http.Client{}, Validator: validator()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rule    rules.RuleID
		outcome Outcome
	}{
		{"a rule of the catalog", rules.ErrorRecord, Failed},
		{"a mistyped rule", rules.RuleID("ERROR-RECORDS"), Errored},
		{"a renamed rule", rules.RuleID("ERROR-REC"), Errored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Result
			s.cfg.OnScenario = func(r Result) { got = r }
			own, _ := rules.Lookup(rules.AuthMissing)
			st := &state{Result: Result{Rule: own}, started: time.Now()}
			ctx := context.WithValue(context.Background(), stateKey{}, st)
			s.fail(st, tt.rule, nil, "an Error record", "something else")
			if _, err := s.after(ctx, &godog.Scenario{Name: "test"}, nil); err != nil {
				t.Fatal(err)
			}
			if got.Outcome != tt.outcome {
				t.Fatalf("outcome = %s, want %s (failures %v, err %v)", got.Outcome, tt.outcome, got.Failures, got.Err)
			}
			if tt.outcome == Errored && !errors.Is(got.Err, ErrSuiteDefect) {
				t.Errorf("err = %v, want a suite defect", got.Err)
			}
			for _, f := range got.Failures {
				if f.Rule.ID == own.ID {
					t.Errorf("the failure was laid to the scenario's own rule %s", own.ID)
				}
			}
		})
	}
}

// TestFreshIDsFromCasesSentAtOnce: a scenario's generated cases go at
// once, and each may draw fresh ids (refusesStored, asked by the first
// refusal): the draws never race (go test -race fails this without the
// lock).
func TestFreshIDsFromCasesSentAtOnce(t *testing.T) {
	t.Parallel()
	st := &state{ids: rand.New(rand.NewPCG(1, 2))}
	seen := make([][]int64, 4)
	var wg sync.WaitGroup
	for g := range seen {
		wg.Go(func() {
			for range 50 {
				seen[g] = append(seen[g], st.freshID())
			}
		})
	}
	wg.Wait()
	all := map[int64]bool{}
	for _, ids := range seen {
		for _, id := range ids {
			all[id] = true
		}
	}
	if len(all) != 200 {
		t.Errorf("%d distinct ids of 200 drawn", len(all))
	}
}
