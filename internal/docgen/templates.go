package docgen

import (
	_ "embed"
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

// The two renderings of a Book: Markdown for GitHub, and a page of its own.
var (
	//go:embed plant-store-api.md.tmpl
	markdownText string
	//go:embed index.html.tmpl
	pageText string

	markdown = texttemplate.Must(texttemplate.New("md").Funcs(funcs).Parse(markdownText))
	page     = htmltemplate.Must(htmltemplate.New("html").Funcs(funcs).Parse(pageText))
)
