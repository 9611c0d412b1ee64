package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestRulesShowStrength: plantcheck rules gives each rule of the catalog
// the figure this build carries (strength.json), "no mutant" for a rule no
// mutant breaks, in the table, the verbose listing and the JSON, and the
// total with the day and the plantcheck of the self-test that measured it.
func TestRulesShowStrength(t *testing.T) {
	t.Parallel()
	carried, err := strength.Current()
	if err != nil {
		t.Fatal(err)
	}
	code, table, stderr := invoke(t, nil, "rules")
	if code != exitOK {
		t.Fatalf("plantcheck rules: exit %d\n%s", code, stderr)
	}
	_, verbose, _ := invoke(t, nil, "rules", "--verbose")
	_, raw, _ := invoke(t, nil, "rules", "--format", "json")
	var listed []struct {
		ID       rules.RuleID `json:"id"`
		Strength struct {
			Mutants int `json:"mutants"`
			Caught  int `json:"caught"`
		} `json:"strength"`
	}
	if err := json.Unmarshal([]byte(raw), &listed); err != nil {
		t.Fatalf("rules --format json: %v", err)
	}
	if len(listed) != len(rules.Catalog) {
		t.Fatalf("rules --format json lists %d rules, the catalog has %d", len(listed), len(rules.Catalog))
	}
	for i, r := range rules.Catalog {
		want := carried.Figure(r.ID)
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(string(r.ID)) + ` +[A-Z]+ +\d+ +` + regexp.QuoteMeta(want) + ` {2,}`).MatchString(table) {
			t.Errorf("plantcheck rules: no line of %s with %q", r.ID, want)
		}
		if !strings.Contains(verbose, "("+strings.ToUpper(string(r.Level))+"), from "+r.Source+"\n  "+r.Requirement+"\n  strength: "+want+"\n") {
			t.Errorf("plantcheck rules --verbose: %s has no line \"strength: %s\"", r.ID, want)
		}
		f, _ := carried.Rule(r.ID)
		if got := listed[i]; got.ID != r.ID || got.Strength.Mutants != f.Mutants || got.Strength.Caught != f.Caught {
			t.Errorf("rules --format json: %s strength %+v, want %d of %d", got.ID, got.Strength, f.Caught, f.Mutants)
		}
	}
	if want := "\nSuite strength: " + carried.Line() + "\n"; !strings.Contains(table, want) || !strings.Contains(verbose, want) {
		t.Errorf("plantcheck rules: no total line %q", want)
	}
}
