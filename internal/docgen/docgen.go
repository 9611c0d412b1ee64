// Package docgen renders the features as documentation of the Plant Store
// API: one Markdown file and one self-contained HTML page, feature by
// feature and rule by rule, each rule with its level, its source in the
// specification and its requirement, then the scenarios that check it.
package docgen

import (
	"bytes"
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	texttemplate "text/template"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The files Write creates.
const (
	MarkdownFile = "plant-store-api.md"
	HTMLFile     = "index.html"
)

// Book is the documentation's content, shared by both renderings.
type Book struct {
	Title, Version string
	Rules          []rules.Rule
	Features       []Feature
}

// Feature is one feature file.
type Feature struct {
	Name, File  string
	Description []string // paragraphs
	Background  []string // steps, with their keywords
	Groups      []Group
}

// Group is a rule of the catalog and the scenarios of this feature that
// check it.
type Group struct {
	Rule      rules.Rule
	Scenarios []Scenario
}

// Scenario is one scenario or outline, with its Examples (only those that
// belong to the group's rule).
type Scenario struct {
	Name  string
	Line  int
	Steps []string
	Table [][]string // header row first; nil without Examples
}

// Build reads the features in fsys into a Book.
func Build(fsys fs.FS) (*Book, error) {
	docs, _, err := features.Parse(fsys)
	if err != nil {
		return nil, err
	}
	b := &Book{Rules: rules.Catalog}
	if v, err := spec.Default(); err == nil {
		b.Title, b.Version = v.Info().Title, v.Info().Version
	}
	for _, d := range docs {
		f := d.Doc.Feature
		if f == nil {
			continue
		}
		out := Feature{Name: f.Name, File: d.URI, Description: paragraphs(f.Description)}
		groups := map[rules.RuleID]int{}
		add := func(id rules.RuleID, sc Scenario) {
			i, ok := groups[id]
			if !ok {
				r, found := rules.Lookup(id)
				if !found {
					r = rules.Rule{ID: id}
				}
				i = len(out.Groups)
				groups[id] = i
				out.Groups = append(out.Groups, Group{Rule: r})
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
			if id := ruleOf(sc.Tags); id != "" && len(sc.Examples) == 0 {
				add(id, base)
				continue
			}
			for _, ex := range sc.Examples {
				s := base
				s.Table = table(ex)
				id := ruleOf(ex.Tags)
				if id == "" {
					id = ruleOf(sc.Tags)
				}
				add(id, s)
			}
		}
		b.Features = append(b.Features, out)
	}
	return b, nil
}

func ruleOf(tags []*messages.Tag) rules.RuleID {
	for _, t := range tags {
		if features.IsRuleTag(t.Name) {
			return rules.RuleID(strings.TrimPrefix(t.Name, "@"))
		}
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
	row := func(r *messages.TableRow) []string {
		out := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			out[i] = c.Value
		}
		return out
	}
	rows := [][]string{row(ex.TableHeader)}
	for _, r := range ex.TableBody {
		rows = append(rows, row(r))
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

// Write renders the embedded features into dir (created if missing) and
// returns the paths written.
func Write(dir string) ([]string, error) {
	b, err := Build(features.FS)
	if err != nil {
		return nil, err
	}
	var md, html bytes.Buffer
	if err := markdown.Execute(&md, b); err != nil {
		return nil, err
	}
	if err := page.Execute(&html, b); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for name, data := range map[string][]byte{MarkdownFile: md.Bytes(), HTMLFile: html.Bytes()} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

var funcs = map[string]any{
	"upper":  func(l rules.Level) string { return strings.ToUpper(string(l)) },
	"anchor": func(id rules.RuleID) string { return strings.ToLower(string(id)) },
	"cells": func(row []string) string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		return "| " + strings.Join(out, " | ") + " |"
	},
	"rule": func(n int) string { return strings.Repeat("|---", n) + "|" },
}

var markdown = texttemplate.Must(texttemplate.New("md").Funcs(funcs).Parse(`# {{.Title}} {{.Version}}: what the API promises

This is the living documentation of the Plant Store API, rendered by ` + "`plantcheck docs`" + ` from
the feature files plantcheck runs. Every rule has a level: **MUST** (any failure makes a
service non-conformant), **SHOULD** (reported; it fails a run only with ` + "`--strict`" + `) or
**OPEN** (the specification leaves it open: noted, never failed).

## Rules

| Rule | Level | Source in the specification | Requirement |
|---|---|---|---|
{{range .Rules}}| [{{.ID}}](#{{anchor .ID}}) | {{upper .Level}} | {{.Source}} | {{.Requirement}} |
{{end}}
{{range .Features}}
## {{.Name}}

{{range .Description}}{{.}}

{{end}}{{if .Background}}Every scenario below starts from:

` + "```gherkin" + `
{{range .Background}}{{.}}
{{end}}` + "```" + `
{{end}}{{range .Groups}}
### {{.Rule.ID}}

**{{upper .Rule.Level}}**: {{.Rule.Requirement}}
*Source: {{.Rule.Source}}.*
{{range .Scenarios}}
*Scenario: {{.Name}}*

` + "```gherkin" + `
{{range .Steps}}{{.}}
{{end}}` + "```" + `
{{if .Table}}
{{cells (index .Table 0)}}
{{rule (len (index .Table 0))}}
{{range $i, $r := .Table}}{{if $i}}{{cells $r}}
{{end}}{{end}}{{end}}{{end}}{{end}}{{end}}`))

var page = htmltemplate.Must(htmltemplate.New("html").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}: what the API promises</title>
<style>
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; background: #f9fafb; }
main { max-width: 960px; margin: 0 auto; padding: 24px; }
h1 { font-size: 28px; } h2 { margin-top: 40px; border-bottom: 2px solid #e5e7eb; padding-bottom: 4px; }
h3 { margin: 28px 0 4px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 17px; }
table { border-collapse: collapse; width: 100%; background: #fff; margin: 8px 0; }
th, td { border: 1px solid #e5e7eb; padding: 5px 9px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
.level { font-size: 12px; font-weight: 700; padding: 1px 6px; border-radius: 4px; }
.must { background: #fde2e1; color: #8c1d18; } .should { background: #fef3c7; color: #7c4a03; } .open { background: #e0e7ff; color: #3730a3; }
.source { color: #4b5563; font-style: italic; }
pre { background: #111827; color: #e5e7eb; padding: 10px 12px; border-radius: 6px; overflow-x: auto; font-size: 14px; }
.scenario { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 14px; margin: 10px 0; }
.scenario .name { font-weight: 600; }
</style>
</head>
<body>
<main>
<h1>{{.Title}} {{.Version}}: what the API promises</h1>
<p>The living documentation of the Plant Store API, rendered by <code>plantcheck docs</code> from the feature files plantcheck runs.
Every rule has a level: <span class="level must">MUST</span> (any failure makes a service non-conformant),
<span class="level should">SHOULD</span> (reported; it fails a run only with <code>--strict</code>) or
<span class="level open">OPEN</span> (the specification leaves it open: noted, never failed).</p>
<h2 id="rules">Rules</h2>
<table>
<thead><tr><th>Rule</th><th>Level</th><th>Source in the specification</th><th>Requirement</th></tr></thead>
<tbody>
{{range .Rules}}<tr><td><a href="#{{anchor .ID}}">{{.ID}}</a></td><td><span class="level {{.Level}}">{{upper .Level}}</span></td><td>{{.Source}}</td><td>{{.Requirement}}</td></tr>
{{end}}</tbody>
</table>
{{range .Features}}
<h2>{{.Name}}</h2>
{{range .Description}}<p>{{.}}</p>
{{end}}{{if .Background}}<p>Every scenario below starts from:</p>
<pre>{{range .Background}}{{.}}
{{end}}</pre>{{end}}
{{range .Groups}}<section class="rule" id="{{anchor .Rule.ID}}">
<h3>{{.Rule.ID}} <span class="level {{.Rule.Level}}">{{upper .Rule.Level}}</span></h3>
<p>{{.Rule.Requirement}}<br><span class="source">Source: {{.Rule.Source}}.</span></p>
{{range .Scenarios}}<div class="scenario"><div class="name">Scenario: {{.Name}}</div>
<pre>{{range .Steps}}{{.}}
{{end}}</pre>
{{if .Table}}<table>{{range $i, $r := .Table}}<tr>{{range $r}}{{if $i}}<td>{{.}}</td>{{else}}<th>{{.}}</th>{{end}}{{end}}</tr>{{end}}</table>{{end}}
</div>
{{end}}</section>
{{end}}{{end}}
</main>
</body>
</html>
`))
