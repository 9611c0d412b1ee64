package features

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Scenario is one scenario as the suite runs it: an outline gives one per
// row of its Examples.
type Scenario struct {
	Name string `json:"name"`
	// URI is the feature file; Line the line of the scenario, or of its
	// Examples row.
	URI  string `json:"uri"`
	Line int    `json:"line"`
	// Rules are the rule ID tags, Levels the level tags (one of each when
	// the scenario is well tagged).
	Rules  []rules.RuleID `json:"rules"`
	Levels []rules.Level  `json:"levels"`
	Tags   []string       `json:"tags"`
	Steps  []string       `json:"steps"`
}

// Rule returns the scenario's rule ID, or "" when it has not exactly one.
func (s Scenario) Rule() rules.RuleID {
	if len(s.Rules) != 1 {
		return ""
	}
	return s.Rules[0]
}

// Document is one parsed feature file.
type Document struct {
	URI string
	Doc *messages.GherkinDocument
}

var ruleTag = regexp.MustCompile(`^@[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// IsRuleTag reports whether a tag names a rule (such as @CREATE-200).
func IsRuleTag(tag string) bool { return ruleTag.MatchString(tag) }

// Parse parses the feature files of fsys and returns their documents and
// scenarios, in file order.
func Parse(fsys fs.FS) ([]Document, []Scenario, error) {
	names, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	var docs []Document
	var out []Scenario
	var n int
	newID := func() string { n++; return strconv.Itoa(n) }
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, err
		}
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(b), newID)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		docs = append(docs, Document{URI: name, Doc: doc})
		lines := astLines(doc)
		for _, p := range gherkin.Pickles(*doc, name, newID) {
			s := Scenario{Name: p.Name, URI: name}
			for _, id := range p.AstNodeIds {
				s.Line = lines[id] // the last node is the Examples row, if any
			}
			for _, t := range p.Tags {
				s.Tags = append(s.Tags, t.Name)
				switch lvl := rules.Level(strings.TrimPrefix(t.Name, "@")); {
				case lvl == rules.Must || lvl == rules.Should || lvl == rules.Open:
					s.Levels = append(s.Levels, lvl)
				case IsRuleTag(t.Name):
					s.Rules = append(s.Rules, rules.RuleID(strings.TrimPrefix(t.Name, "@")))
				}
			}
			for _, st := range p.Steps {
				s.Steps = append(s.Steps, st.Text)
			}
			out = append(out, s)
		}
	}
	return docs, out, nil
}

// astLines maps the ids of scenarios and Examples rows to their lines.
func astLines(doc *messages.GherkinDocument) map[string]int {
	lines := map[string]int{}
	add := func(sc *messages.Scenario) {
		if sc == nil {
			return
		}
		lines[sc.Id] = int(sc.Location.Line)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	if doc.Feature == nil {
		return lines
	}
	for _, c := range doc.Feature.Children {
		add(c.Scenario)
		if c.Rule != nil {
			for _, rc := range c.Rule.Children {
				add(rc.Scenario)
			}
		}
	}
	return lines
}

var parsed = sync.OnceValues(func() ([]Scenario, error) {
	_, s, err := Parse(FS)
	return s, err
})

// Scenarios returns the scenarios of the embedded features, parsed once.
func Scenarios() ([]Scenario, error) { return parsed() }

// Gate checks that the catalog and the scenarios agree: every rule has a
// scenario, every scenario names exactly one rule of the catalog and that
// rule's level, and no two rules share an ID. It returns the problems found.
func Gate(catalog []rules.Rule, scenarios []Scenario) []string {
	var problems []string
	byID := map[rules.RuleID]rules.Rule{}
	for _, r := range catalog {
		if _, dup := byID[r.ID]; dup {
			problems = append(problems, fmt.Sprintf("rule %s is in the catalog twice", r.ID))
		}
		byID[r.ID] = r
		if r.Level != rules.Must && r.Level != rules.Should && r.Level != rules.Open {
			problems = append(problems, fmt.Sprintf("rule %s has no level", r.ID))
		}
	}
	covered := map[rules.RuleID]bool{}
	for _, s := range scenarios {
		where := fmt.Sprintf("%s:%d %q", s.URI, s.Line, s.Name)
		switch len(s.Rules) {
		case 0:
			problems = append(problems, where+" names no rule")
			continue
		case 1:
		default:
			problems = append(problems, fmt.Sprintf("%s names %d rules (%s); a scenario encodes one", where, len(s.Rules), rules.JoinIDs(s.Rules, " ")))
			continue
		}
		r, ok := byID[s.Rules[0]]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s names rule %s, which is not in the catalog", where, s.Rules[0]))
			continue
		}
		covered[r.ID] = true
		switch {
		case len(s.Levels) == 0:
			problems = append(problems, fmt.Sprintf("%s has no level tag (@%s for %s)", where, r.Level, r.ID))
		case len(s.Levels) > 1 || s.Levels[0] != r.Level:
			problems = append(problems, fmt.Sprintf("%s is tagged %v, but rule %s is %s", where, s.Levels, r.ID, r.Level))
		}
	}
	for _, r := range catalog {
		if !covered[r.ID] {
			problems = append(problems, fmt.Sprintf("rule %s has no scenario", r.ID))
		}
	}
	return slices.Compact(problems)
}
