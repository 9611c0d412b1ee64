package features

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

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
