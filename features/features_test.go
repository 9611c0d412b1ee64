package features

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

func TestCatalogAndScenariosAgree(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < len(rules.Catalog) {
		t.Fatalf("%d scenarios for %d rules", len(scs), len(rules.Catalog))
	}
	for _, p := range Gate(rules.Catalog, scs) {
		t.Error(p)
	}
}

// TestGateCanFail changes the catalog or the scenarios in one respect each
// and checks that the gate names the problem.
func TestGateCanFail(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	without := func(id rules.RuleID) []Scenario {
		return slices.DeleteFunc(slices.Clone(scs), func(s Scenario) bool { return s.Rule() == id })
	}
	edit := func(change func(*Scenario)) []Scenario {
		out := slices.Clone(scs)
		change(&out[0])
		return out
	}
	tests := []struct {
		name      string
		rules     []rules.Rule
		scenarios []Scenario
		want      string
	}{
		{"a rule loses its scenario", rules.Catalog, without("CREATE-TAG"), "rule CREATE-TAG has no scenario"},
		{"a scenario names no rule", rules.Catalog, edit(func(s *Scenario) { s.Rules = nil }), "names no rule"},
		{"a scenario names a rule not in the catalog", rules.Catalog, edit(func(s *Scenario) { s.Rules = []rules.RuleID{"NO-SUCH-RULE"} }), "NO-SUCH-RULE, which is not in the catalog"},
		{"a scenario has no level", rules.Catalog, edit(func(s *Scenario) { s.Levels = nil }), "has no level tag"},
		{"a scenario has the wrong level", rules.Catalog, edit(func(s *Scenario) { s.Levels = []rules.Level{rules.Open} }), "is tagged [open], but rule"},
		{"a scenario names two rules", rules.Catalog, edit(func(s *Scenario) { s.Rules = []rules.RuleID{rules.Create200, rules.CreateTag} }), "names 2 rules"},
		{"two rules share an ID", append(slices.Clone(rules.Catalog), rules.Catalog[0]), scs, "rule " + string(rules.Catalog[0].ID) + " is in the catalog twice"},
		{"a rule has no level", append(slices.Clone(rules.Catalog), rules.Rule{ID: "NEW-RULE"}), scs, "rule NEW-RULE has no level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Gate(tt.rules, tt.scenarios)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("Gate() = %q, want a problem saying %q", got, tt.want)
			}
		})
	}
}

func TestParseFindsTagsAndLines(t *testing.T) {
	fsys := fstest.MapFS{"a.feature": {Data: []byte(`@area-x
Feature: A
  @ONE-RULE @must
  Scenario: plain
    Given a step

  Scenario Outline: outline <n>
    Given step <n>

    @TWO-RULE @should
    Examples:
      | n |
      | 1 |
      | 2 |
`)}}
	_, scs, err := Parse(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		rule  rules.RuleID
		level rules.Level
		line  int
		step  string
	}{
		{"plain", "ONE-RULE", rules.Must, 4, "a step"},
		{"outline 1", "TWO-RULE", rules.Should, 13, "step 1"},
		{"outline 2", "TWO-RULE", rules.Should, 14, "step 2"},
	}
	if len(scs) != len(want) {
		t.Fatalf("%d scenarios, want %d: %+v", len(scs), len(want), scs)
	}
	for i, w := range want {
		s := scs[i]
		if s.Name != w.name || s.Rule() != w.rule || len(s.Levels) != 1 || s.Levels[0] != w.level || s.Line != w.line || s.Steps[0] != w.step {
			t.Errorf("scenario %d = %+v, want %+v", i, s, w)
		}
	}
}

func TestDocumentIsExercised(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range DocumentGate(spec.ModelOf(v), scs) {
		t.Error(p)
	}

	doc := string(spec.Document())
	no400 := slices.DeleteFunc(slices.Clone(scs), func(s Scenario) bool {
		return slices.Contains(s.Steps, "the response status is 400")
	})
	tests := []struct {
		name      string
		doc       string
		scenarios []Scenario
		want      string
	}{
		{"a response no scenario expects", doc, no400, "response 400 of POST /plants is expected by no scenario"},
		{"a new response code", strings.Replace(doc, "        '400':", `        '404':
          description: not found
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Error'
        '400':`, 1), scs, "response 404 of POST /plants is expected by no scenario"},
		{"a schema nothing uses", strings.Replace(doc, "  schemas:", `  schemas:
    Pot:
      type: object
      properties:
        size:
          type: integer`, 1), scs, "schema Pot is used by no exercised request or response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mv, err := spec.New([]byte(tt.doc))
			if err != nil {
				t.Fatalf("modified document: %v", err)
			}
			got := DocumentGate(spec.ModelOf(mv), tt.scenarios)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("DocumentGate() = %q, want a problem saying %q", got, tt.want)
			}
		})
	}
}

// TestPathsExist: every path a run gives godog is in FS, and the first is
// the size probes' feature (their largest exchange starts first).
func TestPathsExist(t *testing.T) {
	for i, p := range Paths() {
		b, err := fs.ReadFile(FS, p)
		if p == "." {
			if _, err := fs.ReadDir(FS, p); err != nil {
				t.Errorf("path %q: %v", p, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("path %q: %v", p, err)
			continue
		}
		if i == 0 && !strings.Contains(string(b), "@area-size") {
			t.Errorf("the first path %q is not the size probes' feature", p)
		}
	}
}
