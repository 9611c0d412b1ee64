package features

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/plantcheck/plantcheck/spec/rules"
)

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

// statusStep is the step by which a scenario states the status it expects.
var statusStep = regexp.MustCompile(`^the response status is (\d+)$`)

// postStep is the step that sends a request to the operation.
const postStep = "the client posts it to /plants"

// DocumentGate checks that the scenarios exercise the whole document: every
// response code of every operation is the expected status of some scenario,
// every request body is sent by some scenario, and every schema of the
// components is used by an exercised response or request (directly or
// through allOf and properties). It returns the problems found.
func DocumentGate(doc *v3.Document, scenarios []Scenario) []string {
	statuses := map[string]bool{}
	posts := false
	for _, s := range scenarios {
		for _, st := range s.Steps {
			if m := statusStep.FindStringSubmatch(st); m != nil {
				statuses[m[1]] = true
			}
			posts = posts || st == postStep
		}
	}
	var problems []string
	used := map[string]bool{}
	if doc == nil || doc.Paths == nil || doc.Paths.PathItems == nil {
		return []string{"the document has no paths"}
	}
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			name := strings.ToUpper(method) + " " + path
			if op.RequestBody != nil && op.RequestBody.Content != nil {
				if !posts || name != "POST /plants" {
					problems = append(problems, fmt.Sprintf("the request body of %s is sent by no scenario", name))
				} else {
					for _, mt := range op.RequestBody.Content.FromOldest() {
						markUsed(mt.Schema, used, 0)
					}
				}
			}
			if op.Responses == nil || op.Responses.Codes == nil {
				continue
			}
			for code, resp := range op.Responses.Codes.FromOldest() {
				if !statuses[code] || name != "POST /plants" {
					problems = append(problems, fmt.Sprintf("response %s of %s is expected by no scenario", code, name))
					continue
				}
				if resp.Content != nil {
					for _, mt := range resp.Content.FromOldest() {
						markUsed(mt.Schema, used, 0)
					}
				}
			}
		}
	}
	if doc.Components != nil && doc.Components.Schemas != nil {
		for name := range doc.Components.Schemas.KeysFromOldest() {
			if !used[name] {
				problems = append(problems, fmt.Sprintf("schema %s is used by no exercised request or response", name))
			}
		}
	}
	return problems
}

// markUsed records the component schemas sp refers to, through allOf,
// anyOf, oneOf, properties and items.
func markUsed(sp *base.SchemaProxy, used map[string]bool, depth int) {
	if sp == nil || depth > 32 {
		return
	}
	if ref := sp.GetReference(); ref != "" {
		name := ref[strings.LastIndex(ref, "/")+1:]
		if used[name] {
			return
		}
		used[name] = true
	}
	s := sp.Schema()
	if s == nil {
		return
	}
	for _, list := range [][]*base.SchemaProxy{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range list {
			markUsed(c, used, depth+1)
		}
	}
	if s.Properties != nil {
		for _, p := range s.Properties.FromOldest() {
			markUsed(p, used, depth+1)
		}
	}
	if s.Items != nil && s.Items.IsA() {
		markUsed(s.Items.A, used, depth+1)
	}
}
