// Package htmlpage holds what plantcheck's HTML pages share: the report
// pages' stylesheet, and the SVG badge that shows a verdict in a word.
// The verdict's writers use them for `plantcheck run` and `plantcheck
// proxy` alike; everything put in a page goes through html/template, which
// escapes it.
package htmlpage

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
)

//go:embed style.css
var style string

// Funcs are the functions a report page's template may call: style, the
// stylesheet, for a <style> element.
func Funcs() template.FuncMap {
	return template.FuncMap{"style": func() template.CSS { return template.CSS(style) }}
}

// The badge's colours, by standing.
const (
	Pass    = "#2e8b57"
	Fail    = "#c0392b"
	Neutral = "#7f8c8d" // partial, nothing judged
	Warn    = "#d68910" // incomplete, the clients' failure
)

// Badge draws a small SVG badge: left (escaped) on grey, word on colour.
// word and colour are plantcheck's own.
func Badge(left, word, colour string) []byte {
	lw, rw := 7*len(left)+12, 7*len(word)+12
	left = template.HTMLEscapeString(left)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, lw+rw, left, word)
	fmt.Fprintf(&b, `<title>%s: %s</title>`, left, word)
	fmt.Fprintf(&b, `<rect width="%d" height="20" rx="3" fill="#555"/><rect x="%d" width="%d" height="20" rx="3" fill="%s"/>`, lw+rw, lw, rw, colour)
	fmt.Fprintf(&b, `<rect x="%d" width="4" height="20" fill="%s"/>`, lw, colour)
	fmt.Fprintf(&b, `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`+"\n", lw/2, left, lw+rw/2, word)
	return b.Bytes()
}
