package strength_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	for _, d := range drift(t, f, mutants.All) {
		t.Error(d)
	}
	if f.Measured == "" || f.Plantcheck == "" || len(f.Suite) != 64 {
		t.Errorf("strength.json does not say when, by which plantcheck and on which suite it was measured: %q %q %q", f.Measured, f.Plantcheck, f.Suite)
	}
}

// TestDriftIsCaught: the check TestFiguresFollowTheCatalog makes fails on
// figures that were not generated again after the catalog changed (a
// mutant added, removed, moved or breaking other rules) or were edited by
// hand, and passes on figures that follow the catalog.
func TestDriftIsCaught(t *testing.T) {
	t.Parallel()
	carried, err := strength.Current()
	if err != nil {
		t.Fatal(err)
	}
	added := mutants.Mutant{Name: "a-mutant-added-since", Defect: "answers 201", Rules: []rules.RuleID{rules.Create200}}
	all := mutants.All
	tests := []struct {
		name    string
		catalog []mutants.Mutant
		edit    func(*strength.Figures)
		want    string // in a line of the drift; "" none
	}{
		{"the catalog as generated", all, nil, ""},
		{"one mutant added", append(slices.Clone(all), added), nil, "added: [a-mutant-added-since]"},
		{"one mutant removed", all[1:], nil, "removed: [" + all[0].Name + "]"},
		{"two mutants swapped", append([]mutants.Mutant{all[1], all[0]}, all[2:]...), nil, "differ from mutants.All"},
		{"a mutant breaking another rule", slices.Concat(
			[]mutants.Mutant{{Name: all[0].Name, Defect: all[0].Defect, Rules: []rules.RuleID{rules.AuthEmpty}}}, all[1:]), nil,
			"mutant " + all[0].Name + " breaks [AUTH-EMPTY]"},
		{"a total edited by hand", all, func(f *strength.Figures) { f.Caught-- }, "its mutants add up to"},
		{"a rule's figure edited by hand", all, func(f *strength.Figures) { f.Rules[0].Mutants++ }, "do not add up from its mutants"},
		{"a rule the catalog lacks", all, func(f *strength.Figures) { f.Rules = append(f.Rules, strength.Rule{ID: "NO-SUCH-RULE", Mutants: 1}) }, "which the catalog lacks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := *carried
			f.Each = slices.Clone(carried.Each)
			f.Rules = slices.Clone(carried.Rules)
			if tt.edit != nil {
				tt.edit(&f)
			}
			got := drift(t, &f, tt.catalog)
			if tt.want == "" {
				if len(got) > 0 {
					t.Errorf("drift %q, want none", got)
				}
				return
			}
			if !slices.ContainsFunc(got, func(d string) bool { return strings.Contains(d, tt.want) }) {
				t.Errorf("drift %q, want a line with %q", got, tt.want)
			}
		})
	}
}

// drift lists how f differs from what go generate would write for
// catalog, in all but the catching (which only running the mutants
// shows): the mutants, in order, each with the rules it breaks, and the
// figures they add up to.
func drift(t *testing.T, f *strength.Figures, catalog []mutants.Mutant) []string {
	t.Helper()
	var out []string
	var names []string
	for _, m := range catalog {
		names = append(names, m.Name)
	}
	var got []string
	for _, m := range f.Each {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, names) {
		out = append(out, fmt.Sprintf("mutants in strength.json differ from mutants.All: %s\nadded: %v\nremoved: %v", regenerate, missing(names, got), missing(got, names)))
	}
	for _, m := range catalog {
		i := slices.IndexFunc(f.Each, func(e strength.Mutant) bool { return e.Name == m.Name })
		if i < 0 {
			continue
		}
		if !slices.Equal(f.Each[i].Rules, m.Rules) {
			out = append(out, fmt.Sprintf("mutant %s breaks %v, strength.json says %v: %s", m.Name, m.Rules, f.Each[i].Rules, regenerate))
		}
	}
	// The figures a verdict carries are those the mutants' lines add up to.
	again := *f
	again.Tally()
	if again.Mutants != f.Mutants || again.Caught != f.Caught {
		out = append(out, fmt.Sprintf("strength.json says %d of %d mutants caught; its mutants add up to %d of %d", f.Caught, f.Mutants, again.Caught, again.Mutants))
	}
	if a, b := marshal(t, again.Rules), marshal(t, f.Rules); a != b {
		out = append(out, fmt.Sprintf("strength.json's rules do not add up from its mutants:\nfrom them %s\nwritten   %s", a, b))
	}
	for _, r := range f.Rules {
		if _, ok := rules.Lookup(r.ID); !ok {
			out = append(out, fmt.Sprintf("strength.json counts rule %s, which the catalog lacks", r.ID))
		}
	}
	return out
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

// TestLines: the console's line.
func TestLines(t *testing.T) {
	t.Parallel()
	f := strength.Figures{Measured: "2026-11-26", Plantcheck: "v1.4.0", Mutants: 110, Caught: 109}
	if got, want := f.Line(), "109 of 110 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}

// TestFigure: a rule's figure, and a rule no mutant breaks.
func TestFigure(t *testing.T) {
	t.Parallel()
	f := strength.Figures{Rules: []strength.Rule{{ID: rules.AuthNearMiss, Mutants: 20, Caught: 19}}}
	tests := []struct {
		id   rules.RuleID
		want string
	}{
		{rules.AuthNearMiss, "19 of 20 mutants caught"},
		{rules.CreateName, "no mutant"},
	}
	for _, tt := range tests {
		if got := f.Figure(tt.id); got != tt.want {
			t.Errorf("Figure(%s) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

// TestDiffer: figures measured again differ from those carried in the
// suite, a mutant's rules or catching, a mutant added or gone; never in
// when or by which build they were measured.
func TestDiffer(t *testing.T) {
	t.Parallel()
	base := func() *strength.Figures {
		f := &strength.Figures{Measured: "2026-11-26", Plantcheck: "v1.4.0", Suite: strings.Repeat("a", 64), Each: []strength.Mutant{
			{Name: "a", Rules: []rules.RuleID{rules.Create200}, Caught: true},
			{Name: "b", Rules: []rules.RuleID{rules.CreateTag}, Caught: true},
		}}
		f.Tally()
		return f
	}
	tests := []struct {
		name string
		edit func(*strength.Figures)
		want []string
	}{
		{"the same", nil, nil},
		{"measured another day by another build", func(f *strength.Figures) { f.Measured, f.Plantcheck = "2027-01-02", "v1.5.0" }, nil},
		{"another suite", func(f *strength.Figures) { f.Suite = strings.Repeat("b", 64) }, []string{"the suite digest is bbbbbbbbbbbb, the carried figures measured aaaaaaaaaaaa"}},
		{"a survivor", func(f *strength.Figures) { f.Each[1].Caught = false; f.Tally() }, []string{
			"measured 1 of 2 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0; carried 2 of 2 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0",
			"mutant b: not caught now, caught in the carried figures"}},
		{"other rules", func(f *strength.Figures) { f.Each[0].Rules = []rules.RuleID{rules.CreateName}; f.Tally() }, []string{
			"mutant a: breaks CREATE-NAME, the carried figures say CREATE-200"}},
		{"a mutant added", func(f *strength.Figures) {
			f.Each = append(f.Each, strength.Mutant{Name: "c", Rules: []rules.RuleID{rules.CreateTag}, Caught: true})
			f.Tally()
		}, []string{
			"measured 3 of 3 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0; carried 2 of 2 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0",
			"mutant c: not in the carried figures"}},
		{"a mutant gone", func(f *strength.Figures) { f.Each = f.Each[:1]; f.Tally() }, []string{
			"measured 1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0; carried 2 of 2 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0",
			"mutant b: in the carried figures, not measured"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			measured := base()
			if tt.edit != nil {
				tt.edit(measured)
			}
			if got := strength.Differ(base(), measured); !slices.Equal(got, tt.want) {
				t.Errorf("Differ:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
