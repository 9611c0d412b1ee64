package features

import (
	"bytes"
	"fmt"
	"io/fs"
	"regexp"
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
