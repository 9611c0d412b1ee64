package strength_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// regenerate is what a failure tells the reader to run.
const regenerate = "the figures are stale: run `go generate ./internal/strength` (the whole self-test, about a minute) and commit strength.json"

// TestFiguresFollowTheCatalog: strength.json names every mutant of the
// catalog, no other, in its order, with the rules it breaks; its totals
// and its rules' counts are those its mutants add up to. It runs no
// mutant: TestEveryMutantIsCaught (package selftest) proves the catching.
func TestFiguresFollowTheCatalog(t *testing.T) {
	t.Parallel()
	f, err := strength.Current()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mutants.All {
		names = append(names, m.Name)
	}
	var got []string
	for _, m := range f.Each {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, names) {
		t.Errorf("mutants in strength.json differ from mutants.All: %s\nadded: %v\nremoved: %v", regenerate, missing(names, got), missing(got, names))
	}
	for _, m := range mutants.All {
		i := slices.IndexFunc(f.Each, func(e strength.Mutant) bool { return e.Name == m.Name })
		if i < 0 {
			continue
		}
		if !slices.Equal(f.Each[i].Rules, m.Rules) {
			t.Errorf("mutant %s breaks %v, strength.json says %v: %s", m.Name, m.Rules, f.Each[i].Rules, regenerate)
		}
	}
	// The figures a verdict carries are those the mutants' lines add up to.
	again := *f
	again.Tally()
	if again.Mutants != f.Mutants || again.Caught != f.Caught {
		t.Errorf("strength.json says %d of %d mutants caught; its mutants add up to %d of %d", f.Caught, f.Mutants, again.Caught, again.Mutants)
	}
	if a, b := marshal(t, again.Rules), marshal(t, f.Rules); a != b {
		t.Errorf("strength.json's rules do not add up from its mutants:\nfrom them %s\nwritten   %s", a, b)
	}
	for _, r := range f.Rules {
		if _, ok := rules.Lookup(r.ID); !ok {
			t.Errorf("strength.json counts rule %s, which the catalog lacks", r.ID)
		}
	}
	if f.Measured == "" || f.Plantcheck == "" || len(f.Suite) != 64 {
		t.Errorf("strength.json does not say when, by which plantcheck and on which suite it was measured: %q %q %q", f.Measured, f.Plantcheck, f.Suite)
	}
}

// missing is what of want got lacks.
func missing(want, got []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, w)
		}
	}
	return out
}

func marshal(t *testing.T, x any) string {
	t.Helper()
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTally: a mutant counts toward each rule it breaks, caught or not,
// and the rules come in catalog order.
func TestTally(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		each        []strength.Mutant
		wantMutants int
		wantCaught  int
		wantRules   []strength.Rule
	}{
		{"none", nil, 0, 0, nil},
		{"one caught", []strength.Mutant{{Name: "a", Rules: []rules.RuleID{rules.CreateName}, Caught: true}}, 1, 1,
			[]strength.Rule{{ID: rules.CreateName, Mutants: 1, Caught: 1}}},
		{"two rules, one survivor, catalog order", []strength.Mutant{
			{Name: "a", Rules: []rules.RuleID{rules.CreateTag, rules.Create200}, Caught: true},
			{Name: "b", Rules: []rules.RuleID{rules.CreateTag}, Caught: false},
		}, 2, 1, []strength.Rule{{ID: rules.Create200, Mutants: 1, Caught: 1}, {ID: rules.CreateTag, Mutants: 2, Caught: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := strength.Figures{Each: tt.each}
			f.Tally()
			if f.Mutants != tt.wantMutants || f.Caught != tt.wantCaught {
				t.Errorf("totals %d of %d, want %d of %d", f.Caught, f.Mutants, tt.wantCaught, tt.wantMutants)
			}
			if !slices.Equal(f.Rules, tt.wantRules) {
				t.Errorf("rules %v, want %v", f.Rules, tt.wantRules)
			}
		})
	}
}

// TestLines: the console's line and a rule's line.
func TestLines(t *testing.T) {
	t.Parallel()
	f := strength.Figures{Measured: "2026-11-26", Plantcheck: "v1.4.0", Mutants: 110, Caught: 109}
	if got, want := f.Line(), "109 of 110 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	if got, want := (strength.Rule{ID: rules.AuthNearMiss, Mutants: 20, Caught: 20}).String(), "AUTH-NEAR-MISS: 20 of 20 mutants caught"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
