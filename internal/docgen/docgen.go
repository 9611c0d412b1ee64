// Package docgen renders the features as documentation of the Plant Store
// API for the people who write its clients and servers: one Markdown file
// and one self-contained HTML page, readable without JavaScript. It leads
// with the API in the order a reader learns it: what it does, its records
// (field tables read from the embedded OpenAPI document, so that they change
// with it), then the features, creating a plant first. Each rule appears
// once, with its level, its source in the specification, the scenarios
// that check it and one example exchange, made by running the suite
// against the reference server when the documentation is generated. How
// plantcheck itself works (fresh ids, probes, retries) is a section of its
// own at the end.
package docgen

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The files Write creates.
const (
	MarkdownFile = "plant-store-api.md"
	HTMLFile     = "index.html"
)

// ReadingOrder is the order of the features in the documentation, the
// order a reader learns the API in; a feature file not named here follows
// them, in the order of its name.
var ReadingOrder = []string{
	"create_plant.feature",
	"authentication.feature",
	"responses.feature",
	"request_body.feature",
	"media_types.feature",
	"request_size.feature",
	"hostile_strings.feature",
	"generated.feature",
}

// WorkingsMark starts a paragraph of a feature's or a scenario's
// description that says how plantcheck checks, not what the API promises:
// the documentation moves it to the section on plantcheck's workings.
const WorkingsMark = "How plantcheck checks:"

// Book is the documentation's content, shared by both renderings.
type Book struct {
	Title, Version, Description string
	Operations                  []Operation
	Records                     []Record
	// Lead is the example that shows the operation at work, from the
	// first rule that has one (a valid plant created).
	Lead     *Example
	Rules    []rules.Rule
	Features []Feature
	Workings []Working // the paragraphs on how plantcheck checks
}

// WorkingGroups are the workings, feature by feature.
func (b *Book) WorkingGroups() [][]Working {
	var out [][]Working
	for _, w := range b.Workings {
		if n := len(out); n > 0 && out[n-1][0].Feature == w.Feature {
			out[n-1] = append(out[n-1], w)
			continue
		}
		out = append(out, []Working{w})
	}
	return out
}

// Operation is one operation of the OpenAPI document.
type Operation struct {
	Method, Path, Summary, Description string
	Body                               string // the request body's schema
	Responses                          []Response
	Auth                               string // the header a request authenticates with ("" for none)
}

// Response is one documented answer of an operation.
type Response struct{ Status, Description, Media, Schema string }

// Record is one schema of the document that a request or an answer
// carries, with its fields.
type Record struct {
	Name, Role string
	Fields     []Field
}

// Field is one property of a record.
type Field struct{ Name, Type, Required, Constraints, Description string }

// Feature is one feature file.
type Feature struct {
	Name, File, Anchor string
	Description        []string // paragraphs
	Background         []string // steps, with their keywords
	Groups             []Group
}

// Group is a rule of the catalog and the scenarios of this feature that
// check it. The first group of a rule, in the reading order, carries its
// heading and its example; a later one points back to it.
type Group struct {
	Rule      rules.Rule
	First     bool
	Example   *Example
	Scenarios []Scenario
}

// Scenario is one scenario or outline, with its Examples (only those that
// belong to the group's rule).
type Scenario struct {
	Name               string
	Line               int
	Description, Steps []string
	Table              [][]string // header row first; nil without Examples
}

// Working is a paragraph on how plantcheck checks, and where it came from.
type Working struct{ Feature, Anchor, Rule, Text string }

// Build reads the features in fsys and the embedded OpenAPI document into
// a Book, with the examples given (nil: none).
func Build(fsys fs.FS, examples map[ExampleKey]Example) (*Book, error) {
	docs, _, err := features.Parse(fsys)
	if err != nil {
		return nil, err
	}
	b := &Book{Rules: rules.Catalog}
	v, err := spec.Default()
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	b.Title, b.Version = v.Info().Title, v.Info().Version
	if err := b.readDocument(v); err != nil {
		return nil, err
	}
	slices.SortStableFunc(docs, func(x, y features.Document) int { return readingPlace(x.URI) - readingPlace(y.URI) })
	seen := map[rules.RuleID]bool{}
	for _, d := range docs {
		f := d.Doc.Feature
		if f == nil {
			continue
		}
		file := path.Base(d.URI)
		out := Feature{Name: f.Name, File: file, Anchor: "feature-" + strings.TrimSuffix(file, ".feature")}
		out.Description = b.split(paragraphs(f.Description), out, "")
		add := func(id rules.RuleID, sc Scenario) {
			i := slices.IndexFunc(out.Groups, func(g Group) bool { return g.Rule.ID == id })
			if i < 0 {
				r, found := rules.Lookup(id)
				if !found {
					r = rules.Rule{ID: id}
				}
				i = len(out.Groups)
				g := Group{Rule: r, First: !seen[id]}
				seen[id] = true
				if g.First {
					g.Example = exampleFor(examples, file, id)
					if b.Lead == nil && g.Example != nil && strings.HasPrefix(g.Example.Response, "HTTP/1.1 200") {
						b.Lead = g.Example
					}
				}
				out.Groups = append(out.Groups, g)
			}
			out.Groups[i].Scenarios = append(out.Groups[i].Scenarios, sc)
		}
		for _, c := range f.Children {
			if c.Background != nil {
				out.Background = stepLines(c.Background.Steps)
			}
			sc := c.Scenario
			if sc == nil {
				continue
			}
			base := Scenario{Name: sc.Name, Line: int(sc.Location.Line), Steps: stepLines(sc.Steps)}
			desc := paragraphs(sc.Description)
			if id := ruleOf(sc.Tags); id != "" && len(sc.Examples) == 0 {
				base.Description = b.split(desc, out, string(id))
				add(id, base)
				continue
			}
			for j, ex := range sc.Examples {
				s := base
				s.Table = table(ex)
				id := cmp.Or(ruleOf(ex.Tags), ruleOf(sc.Tags))
				if j == 0 {
					// Filed once, under the outline's first rule.
					base.Description = b.split(desc, out, string(id))
				}
				s.Description = base.Description
				add(id, s)
			}
		}
		b.Features = append(b.Features, out)
	}
	return b, nil
}

// exampleFor is the rule's example from this feature file, or else from
// the first file that has one.
func exampleFor(examples map[ExampleKey]Example, file string, id rules.RuleID) *Example {
	for _, f := range append([]string{file}, ReadingOrder...) {
		if e, ok := examples[ExampleKey{File: f, Rule: id}]; ok {
			return &e
		}
	}
	return nil
}

// split keeps a description's paragraphs on what the API promises and
// files those on how plantcheck checks under the book's workings.
func (b *Book) split(paras []string, f Feature, rule string) []string {
	var out []string
	for _, p := range paras {
		if text, ok := strings.CutPrefix(p, WorkingsMark); ok {
			text = strings.TrimSpace(text)
			if r, n := utf8.DecodeRuneInString(text); n > 0 {
				text = string(unicode.ToUpper(r)) + text[n:]
			}
			b.Workings = append(b.Workings, Working{Feature: f.Name, Anchor: f.Anchor, Rule: rule, Text: text})
			continue
		}
		out = append(out, p)
	}
	return out
}

func readingPlace(uri string) int {
	if i := slices.Index(ReadingOrder, path.Base(uri)); i >= 0 {
		return i
	}
	return len(ReadingOrder)
}

// readDocument reads the operations and the records from the OpenAPI
// document.
func (b *Book) readDocument(v *spec.Validator) error {
	m := spec.ModelOf(v)
	if m.Info != nil {
		b.Description = strings.Join(strings.Fields(m.Info.Description), " ")
	}
	auth := ""
	if m.Components != nil && m.Components.SecuritySchemes != nil {
		for _, s := range m.Components.SecuritySchemes.FromOldest() {
			if s.Type == "http" && strings.EqualFold(s.Scheme, "bearer") {
				auth = "Authorization: Bearer <token>"
			}
		}
	}
	if m.Paths == nil || m.Paths.PathItems == nil {
		return fmt.Errorf("the OpenAPI document has no paths")
	}
	seen := map[string]bool{}
	record := func(sh *generate.Shape, role string) {
		if sh == nil || seen[sh.Schema] {
			return
		}
		seen[sh.Schema] = true
		r := Record{Name: sh.Schema, Role: role}
		for _, p := range sh.Properties {
			r.Fields = append(r.Fields, fieldOf(p))
		}
		b.Records = append(b.Records, r)
	}
	for p, item := range m.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			method = strings.ToUpper(method)
			o := Operation{Method: method, Path: p, Summary: op.Summary, Description: op.Description, Auth: auth}
			if sh, err := generate.FromDocument(m, method, p); err == nil {
				o.Body = sh.Schema
				record(sh, "the request body of "+method+" "+p)
			}
			if op.Responses != nil && op.Responses.Codes != nil {
				for code, r := range op.Responses.Codes.FromOldest() {
					resp := Response{Status: code, Description: r.Description}
					if r.Content != nil {
						for media := range r.Content.KeysFromOldest() {
							resp.Media = media
							break
						}
						if mt := r.Content.GetOrZero("application/json"); mt != nil {
							if sh, err := generate.ShapeOf(mt.Schema); err == nil {
								resp.Schema = sh.Schema
								record(sh, "the body of the answer "+code+" ("+r.Description+")")
							}
						}
					}
					o.Responses = append(o.Responses, resp)
				}
			}
			b.Operations = append(b.Operations, o)
		}
	}
	return nil
}

// fieldOf writes a property as a row of a field table.
func fieldOf(p generate.Property) Field {
	f := Field{Name: p.Name, Type: p.Type, Required: map[bool]string{false: "no", true: "yes"}[p.Required], Description: p.Description, Constraints: p.Constraints}
	if p.Format != "" {
		f.Type += " (" + p.Format + ")"
	}
	bounds := map[string]string{
		"int32": "from -2147483648 to 2147483647",
		"int64": "from -9223372036854775808 to 9223372036854775807",
	}[p.Format]
	parts := slices.DeleteFunc([]string{bounds, f.Constraints}, func(s string) bool { return s == "" })
	f.Constraints = cmp.Or(strings.Join(parts, ", "), "none shown")
	return f
}

func ruleOf(tags []*messages.Tag) rules.RuleID {
	if i := slices.IndexFunc(tags, func(t *messages.Tag) bool { return features.IsRuleTag(t.Name) }); i >= 0 {
		return rules.RuleID(strings.TrimPrefix(tags[i].Name, "@"))
	}
	return ""
}

func stepLines(steps []*messages.Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = strings.TrimSpace(s.Keyword) + " " + s.Text
	}
	return out
}

func table(ex *messages.Examples) [][]string {
	if ex.TableHeader == nil {
		return nil
	}
	var rows [][]string
	for _, r := range append([]*messages.TableRow{ex.TableHeader}, ex.TableBody...) {
		row := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			row[i] = c.Value
		}
		rows = append(rows, row)
	}
	return rows
}

// paragraphs splits a Gherkin description into paragraphs, joining the
// lines of each.
func paragraphs(desc string) []string {
	var out []string
	for _, p := range strings.Split(desc, "\n\n") {
		var lines []string
		for _, l := range strings.Split(p, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			out = append(out, strings.Join(lines, " "))
		}
	}
	return out
}

// Render makes the documentation's two files from the embedded features,
// running the suite against a reference server of its own for the
// examples.
func Render(ctx context.Context) (md, html []byte, err error) {
	ex, err := Examples(ctx)
	if err != nil {
		return nil, nil, err
	}
	b, err := Build(features.FS, ex)
	if err != nil {
		return nil, nil, err
	}
	var m, h bytes.Buffer
	if err := markdown.Execute(&m, b); err != nil {
		return nil, nil, err
	}
	if err := page.Execute(&h, b); err != nil {
		return nil, nil, err
	}
	return m.Bytes(), h.Bytes(), nil
}

// Write renders the documentation into dir (created if missing) and
// returns the paths written.
func Write(ctx context.Context, dir string) ([]string, error) {
	md, html, err := Render(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(dir, MarkdownFile), filepath.Join(dir, HTMLFile)}
	for i, data := range [][]byte{md, html} {
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}
