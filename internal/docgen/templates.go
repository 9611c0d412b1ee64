package docgen

import (
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"unicode"

	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// slug is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, other punctuation dropped.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var funcs = map[string]any{
	"slug":   slug,
	"lower":  strings.ToLower,
	"upper":  func(l rules.Level) string { return strings.ToUpper(string(l)) },
	"anchor": func(id rules.RuleID) string { return strings.ToLower(string(id)) },
	"cells": func(row []string) string {
		out := make([]string, len(row))
		for i, c := range row {
			out[i] = strings.ReplaceAll(strings.ReplaceAll(c, "|", `\|`), "<", `\<`)
		}
		return "| " + strings.Join(out, " | ") + " |"
	},
	"rule":   func(n int) string { return strings.Repeat("|---", n) + "|" },
	"fenced": func(s string) string { return mdquote.Block(strings.TrimSuffix(s, "\n"), "http", "") },
	// md escapes the one character of prose that Markdown would read as
	// markup here: "<token>" or "<case>" would be taken for an HTML tag
	// and dropped.
	"md": func(s string) string { return strings.ReplaceAll(s, "<", `\<`) },
	"a": func(noun string) string {
		if noun != "" && strings.ContainsRune("AEIOUaeiou", rune(noun[0])) {
			return "an"
		}
		return "a"
	},
	"cell": func(s string) string { return strings.ReplaceAll(s, "|", `\|`) },
}

var (
	markdown = texttemplate.Must(texttemplate.New("md").Funcs(funcs).Parse(markdownText))
	page     = htmltemplate.Must(htmltemplate.New("html").Funcs(funcs).Parse(pageText))
)

const intro = `This is the living documentation of the Plant Store API, rendered by ` + "`plantcheck docs`" + ` from
the OpenAPI document and the feature files plantcheck runs. Every rule has a level: **MUST** (any
failure makes a service non-conformant), **SHOULD** (reported; it fails a run only with
` + "`--strict`" + `) or **OPEN** (the specification leaves it open: noted, never failed). Every example
exchange is real: plantcheck sent it to its reference server when this page was generated, the
token written ` + "`<token>`" + ` and the service's address ` + "`{base_url}`" + `.`

const markdownText = `# {{.Title}} {{.Version}}: what the API promises

` + intro + `

Contents: [What the API does](#what-the-api-does) · [The records](#the-records){{range .Features}} · [{{.Name}}](#{{slug .Name}}){{end}} · [How plantcheck checks](#how-plantcheck-checks) · [All rules](#all-rules)

## What the API does

{{.Description}}
{{range .Operations}}
**{{.Method}} {base_url}{{.Path}}**: {{.Summary}}. {{.Description}}

| Part | What it is |
|---|---|
{{if .Auth}}| Authentication | an HTTP bearer token: the header ` + "`{{.Auth}}`" + ` |
{{end}}{{if .Body}}| Request body | {{a .Body}} [{{.Body}}](#{{slug .Body}}) record, as application/json |
{{end}}{{range .Responses}}| Answer {{.Status}} | {{if .Schema}}{{a .Schema}} [{{.Schema}}](#{{slug .Schema}}) record{{else}}no body{{end}} ({{.Description}}){{if .Media}}, as {{.Media}}{{end}} |
{{end}}{{end}}{{with .Lead}}
For example (from the scenario *{{md .Scenario}}*):

{{fenced .Request}}
{{fenced .Response}}{{end}}
## The records
{{range .Records}}
### {{.Name}}

{{.Name}} is {{.Role}}.

| Field | Type | Required | Constraints | Description |
|---|---|---|---|---|
{{range .Fields}}| ` + "`{{.Name}}`" + ` | {{.Type}} | {{.Required}} | {{cell .Constraints}} | {{cell .Description}} |
{{end}}{{end}}{{range .Features}}
## {{.Name}}

{{range .Description}}{{md .}}

{{end}}{{if .Background}}Every scenario below starts from:

` + "```gherkin" + `
{{range .Background}}{{.}}
{{end}}` + "```" + `
{{end}}{{range .Groups}}{{if .First}}
### {{.Rule.ID}}

**{{upper .Rule.Level}}**: {{md .Rule.Requirement}}
*Source: {{md .Rule.Source}}.*
{{with .Example}}
Example, from the scenario *{{md .Scenario}}*:

{{fenced .Request}}
{{fenced .Response}}{{end}}{{else}}
**More scenarios of [{{.Rule.ID}}](#{{anchor .Rule.ID}})** ({{upper .Rule.Level}}; its requirement and example are above.)
{{end}}{{range .Scenarios}}
*Scenario: {{md .Name}}*
{{range .Description}}
{{md .}}
{{end}}
` + "```gherkin" + `
{{range .Steps}}{{.}}
{{end}}` + "```" + `
{{if .Table}}
{{cells (index .Table 0)}}
{{rule (len (index .Table 0))}}
{{range $i, $r := .Table}}{{if $i}}{{cells $r}}
{{end}}{{end}}{{end}}{{end}}{{end}}{{end}}
## How plantcheck checks

What follows is how plantcheck goes about checking the rules above, not what the API promises.
{{range .WorkingGroups}}
### {{(index . 0).Feature}}: how it is checked
{{range .}}
{{if .Rule}}**[{{.Rule}}](#{{lower .Rule}}).** {{end}}{{md .Text}}
{{end}}{{end}}
## All rules

| Rule | Level | Source in the specification | Requirement |
|---|---|---|---|
{{range .Rules}}| [{{.ID}}](#{{anchor .ID}}) | {{upper .Level}} | {{md .Source}} | {{md .Requirement}} |
{{end}}`

const pageText = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}: what the API promises</title>
<style>
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; background: #f9fafb; }
main { max-width: 960px; margin: 0 auto; padding: 24px; }
h1 { font-size: 28px; margin: 8px 0; } h2 { margin-top: 40px; border-bottom: 2px solid #e5e7eb; padding-bottom: 4px; }
h3 { margin: 28px 0 4px; font-size: 18px; } h3.rule-id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 17px; }
nav { font-size: 14px; color: #374151; } nav a { margin-right: 10px; white-space: nowrap; }
table { border-collapse: collapse; width: 100%; background: #fff; margin: 8px 0; }
th, td { border: 1px solid #e5e7eb; padding: 5px 9px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 14px; }
.level { font-size: 12px; font-weight: 700; padding: 1px 6px; border-radius: 4px; }
.must { background: #fde2e1; color: #8c1d18; } .should { background: #fef3c7; color: #7c4a03; } .open { background: #e0e7ff; color: #3730a3; }
.source { color: #4b5563; font-style: italic; }
pre { background: #111827; color: #e5e7eb; padding: 10px 12px; border-radius: 6px; overflow-x: auto; font-size: 14px; white-space: pre-wrap; overflow-wrap: anywhere; }
.exchange { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; } .exchange pre { margin: 0; }
@media (max-width: 760px) { .exchange { grid-template-columns: 1fr; } }
.example-of { font-size: 14px; color: #374151; margin: 10px 0 4px; }
.scenario { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 14px; margin: 10px 0; }
.scenario .name { font-weight: 600; }
.more { margin: 20px 0 4px; }
</style>
</head>
<body>
<main>
<h1>{{.Title}} {{.Version}}: what the API promises</h1>
<p>The living documentation of the Plant Store API, rendered by <code>plantcheck docs</code> from the OpenAPI document and the feature files plantcheck runs.
Every rule has a level: <span class="level must">MUST</span> (any failure makes a service non-conformant),
<span class="level should">SHOULD</span> (reported; it fails a run only with <code>--strict</code>) or
<span class="level open">OPEN</span> (the specification leaves it open: noted, never failed).
Every example exchange is real: plantcheck sent it to its reference server when this page was generated, the token written <code>&lt;token&gt;</code> and the service's address <code>{base_url}</code>.</p>
<nav><a href="#what-the-api-does">What the API does</a> <a href="#the-records">The records</a>{{range .Features}} <a href="#{{slug .Name}}">{{.Name}}</a>{{end}} <a href="#how-plantcheck-checks">How plantcheck checks</a> <a href="#all-rules">All rules</a></nav>
<h2 id="what-the-api-does">What the API does</h2>
<p>{{.Description}}</p>
{{range .Operations}}<p><strong><code>{{.Method}} {base_url}{{.Path}}</code></strong>: {{.Summary}}. {{.Description}}</p>
<table>
{{if .Auth}}<tr><th>Authentication</th><td>an HTTP bearer token: the header <code>{{.Auth}}</code></td></tr>
{{end}}{{if .Body}}<tr><th>Request body</th><td>{{a .Body}} <a href="#{{slug .Body}}">{{.Body}}</a> record, as application/json</td></tr>
{{end}}{{range .Responses}}<tr><th>Answer {{.Status}}</th><td>{{if .Schema}}{{a .Schema}} <a href="#{{slug .Schema}}">{{.Schema}}</a> record{{else}}no body{{end}} ({{.Description}}){{if .Media}}, as {{.Media}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{with .Lead}}<p class="example-of">For example (from the scenario <em>{{.Scenario}}</em>):</p>
<div class="exchange"><pre>{{.Request}}</pre><pre>{{.Response}}</pre></div>
{{end}}<h2 id="the-records">The records</h2>
{{range .Records}}<h3 id="{{slug .Name}}">{{.Name}}</h3>
<p>{{.Name}} is {{.Role}}.</p>
<table>
<thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Constraints</th><th>Description</th></tr></thead>
<tbody>
{{range .Fields}}<tr><td><code>{{.Name}}</code></td><td>{{.Type}}</td><td>{{.Required}}</td><td>{{.Constraints}}</td><td>{{.Description}}</td></tr>
{{end}}</tbody>
</table>
{{end}}{{range .Features}}
<h2 id="{{slug .Name}}">{{.Name}}</h2>
{{range .Description}}<p>{{.}}</p>
{{end}}{{if .Background}}<p>Every scenario below starts from:</p>
<pre>{{range .Background}}{{.}}
{{end}}</pre>{{end}}
{{range .Groups}}{{if .First}}<section class="rule" id="{{anchor .Rule.ID}}">
<h3 class="rule-id">{{.Rule.ID}} <span class="level {{.Rule.Level}}">{{upper .Rule.Level}}</span></h3>
<p>{{.Rule.Requirement}}<br><span class="source">Source: {{.Rule.Source}}.</span></p>
{{with .Example}}<p class="example-of">Example, from the scenario <em>{{.Scenario}}</em>:</p>
<div class="exchange"><pre>{{.Request}}</pre><pre>{{.Response}}</pre></div>
{{end}}{{else}}<section class="rule">
<p class="more"><strong>More scenarios of <a href="#{{anchor .Rule.ID}}">{{.Rule.ID}}</a></strong> ({{upper .Rule.Level}}; its requirement and example are above.)</p>
{{end}}{{range .Scenarios}}<div class="scenario"><div class="name">Scenario: {{.Name}}</div>
{{range .Description}}<p>{{.}}</p>
{{end}}<pre>{{range .Steps}}{{.}}
{{end}}</pre>
{{if .Table}}<table>{{range $i, $r := .Table}}<tr>{{range $r}}{{if $i}}<td>{{.}}</td>{{else}}<th>{{.}}</th>{{end}}{{end}}</tr>{{end}}</table>{{end}}
</div>
{{end}}</section>
{{end}}{{end}}
<h2 id="how-plantcheck-checks">How plantcheck checks</h2>
<p>What follows is how plantcheck goes about checking the rules above, not what the API promises.</p>
{{range .WorkingGroups}}<h3>{{(index . 0).Feature}}: how it is checked</h3>
{{range .}}<p>{{if .Rule}}<strong><a href="#{{lower .Rule}}">{{.Rule}}</a>.</strong> {{end}}{{.Text}}</p>
{{end}}{{end}}<h2 id="all-rules">All rules</h2>
<table>
<thead><tr><th>Rule</th><th>Level</th><th>Source in the specification</th><th>Requirement</th></tr></thead>
<tbody>
{{range .Rules}}<tr><td><a href="#{{anchor .ID}}">{{.ID}}</a></td><td><span class="level {{.Level}}">{{upper .Level}}</span></td><td>{{.Source}}</td><td>{{.Requirement}}</td></tr>
{{end}}</tbody>
</table>
</main>
</body>
</html>
`
