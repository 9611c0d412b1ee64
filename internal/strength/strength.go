// Package strength holds the suite's strength as the self-test last
// measured it: for each rule, how many of the shipped mutants break it and
// how many of those the suite catches, the totals, and when and by which
// plantcheck the figures were measured. The figures are generated into
// strength.json (go generate ./internal/strength, which runs the whole
// self-test) and carried by the binary, so that every verdict can say how
// much a pass is worth; a test fails when they drift from the mutant
// catalog.
package strength

//go:generate go run ./measure -out strength.json

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Figures are the suite's strength as one self-test measured it.
type Figures struct {
	// Measured is the day the self-test ran (UTC, 2006-01-02), Plantcheck
	// the version of the plantcheck that ran it, Suite the digest of the
	// suite it ran (the features and the rule catalog).
	Measured   string `json:"measured"`
	Plantcheck string `json:"plantcheck"`
	Suite      string `json:"suite"`
	// Mutants and Caught are the totals: the shipped mutants, and those
	// the suite caught (failed on a rule the mutant breaks).
	Mutants int `json:"mutants"`
	Caught  int `json:"caught"`
	// Rules are the rules some mutant breaks, in catalog order.
	Rules []Rule `json:"rules"`
	// Each is every mutant, in the catalog's order: the rules it breaks,
	// and whether the suite caught it.
	Each []Mutant `json:"each,omitempty"`
}

// Brief is f without the mutants' lines: what a verdict carries.
func (f *Figures) Brief() *Figures {
	b := *f
	b.Each = nil
	return &b
}

// Rule is one rule's strength: Mutants break it, the suite caught Caught
// of them.
type Rule struct {
	ID      rules.RuleID `json:"id"`
	Mutants int          `json:"mutants"`
	Caught  int          `json:"caught"`
}

// Mutant is one mutant's line of the self-test.
type Mutant struct {
	Name   string         `json:"name"`
	Rules  []rules.RuleID `json:"rules"`
	Caught bool           `json:"caught"`
}

// Tally fills the totals and the rules' figures from f.Each: a mutant
// counts toward every rule it breaks.
func (f *Figures) Tally() {
	f.Mutants, f.Caught, f.Rules = len(f.Each), 0, nil
	for _, m := range f.Each {
		if m.Caught {
			f.Caught++
		}
		for _, id := range m.Rules {
			i := slices.IndexFunc(f.Rules, func(r Rule) bool { return r.ID == id })
			if i < 0 {
				i, f.Rules = len(f.Rules), append(f.Rules, Rule{ID: id})
			}
			f.Rules[i].Mutants++
			if m.Caught {
				f.Rules[i].Caught++
			}
		}
	}
	// In catalog order; a rule the catalog lacks is kept, last, for the test to name.
	order := func(r Rule) int {
		if i := slices.IndexFunc(rules.Catalog, func(c rules.Rule) bool { return c.ID == r.ID }); i >= 0 {
			return i
		}
		return len(rules.Catalog)
	}
	slices.SortStableFunc(f.Rules, func(a, b Rule) int { return order(a) - order(b) })
}

// Rule is the strength of rule id (ok false: no mutant breaks it).
func (f *Figures) Rule(id rules.RuleID) (Rule, bool) {
	if i := slices.IndexFunc(f.Rules, func(r Rule) bool { return r.ID == id }); i >= 0 {
		return f.Rules[i], true
	}
	return Rule{}, false
}

// Line is the strength in one line, as the console prints it:
// "110 of 110 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0".
func (f *Figures) Line() string {
	return fmt.Sprintf("%d of %d mutants caught, selftest of %s, plantcheck %s", f.Caught, f.Mutants, f.Measured, f.Plantcheck)
}

// NoMutant is the figure of a rule no shipped mutant breaks: a gap, for a
// pass of it is proved by no server that breaks it.
const NoMutant = "no mutant"

// Figure is rule id's figure, "20 of 20 mutants caught", or NoMutant.
func (f *Figures) Figure(id rules.RuleID) string {
	if r, ok := f.Rule(id); ok {
		return fmt.Sprintf("%d of %d mutants caught", r.Caught, r.Mutants)
	}
	return NoMutant
}

// Differ lists how measured differs from carried, the figures this build
// carries, in what a verdict says: the suite digest, and each mutant, the
// rules it breaks and whether it was caught (the totals and the rules'
// figures follow from them). When and by which build each was measured
// is no difference. None: the carried figures are those measured.
func Differ(carried, measured *Figures) []string {
	var out []string
	if carried.Suite != measured.Suite {
		out = append(out, fmt.Sprintf("the suite digest is %.12s, the carried figures measured %.12s", measured.Suite, carried.Suite))
	}
	if a, b := measured.Line(), carried.Line(); measured.Caught != carried.Caught || measured.Mutants != carried.Mutants {
		out = append(out, fmt.Sprintf("measured %s; carried %s", a, b))
	}
	was := map[string]Mutant{}
	for _, m := range carried.Each {
		was[m.Name] = m
	}
	for _, m := range measured.Each {
		c, ok := was[m.Name]
		delete(was, m.Name)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("mutant %s: not in the carried figures", m.Name))
		case !slices.Equal(c.Rules, m.Rules):
			out = append(out, fmt.Sprintf("mutant %s: breaks %s, the carried figures say %s", m.Name, rules.JoinIDs(m.Rules, " "), rules.JoinIDs(c.Rules, " ")))
		case c.Caught != m.Caught:
			out = append(out, fmt.Sprintf("mutant %s: %s now, %s in the carried figures", m.Name, caught[m.Caught], caught[c.Caught]))
		}
	}
	for _, m := range carried.Each {
		if _, ok := was[m.Name]; ok {
			out = append(out, fmt.Sprintf("mutant %s: in the carried figures, not measured", m.Name))
		}
	}
	return out
}

var caught = map[bool]string{true: "caught", false: "not caught"}

//go:embed strength.json
var figures []byte

// Current is the strength this build carries: strength.json.
var Current = sync.OnceValues(func() (*Figures, error) {
	var f Figures
	if err := json.Unmarshal(figures, &f); err != nil {
		return nil, fmt.Errorf("strength.json: %w", err)
	}
	return &f, nil
})
