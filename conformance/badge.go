package conformance

import (
	"bytes"
	"fmt"
	"html/template"
)

// badge is a small SVG badge: the spec and the run's standing.
func (r *Report) badge() []byte {
	word, colour := "non-conformant", "#c0392b"
	switch {
	case r.Partial():
		word, colour = "partial", "#7f8c8d"
	case r.ExitCode() == 0:
		word, colour = "conformant", "#2e8b57"
	case r.ExitCode() == 2:
		word, colour = "incomplete", "#d68910"
	}
	left := fmt.Sprintf("%s %s", r.SpecTitle, r.SpecVersion)
	lw, rw := 7*len(left)+12, 7*len(word)+12
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, lw+rw, template.HTMLEscapeString(left), word)
	fmt.Fprintf(&b, `<title>%s: %s</title>`, template.HTMLEscapeString(left), word)
	fmt.Fprintf(&b, `<rect width="%d" height="20" rx="3" fill="#555"/><rect x="%d" width="%d" height="20" rx="3" fill="%s"/>`, lw+rw, lw, rw, colour)
	fmt.Fprintf(&b, `<rect x="%d" width="4" height="20" fill="%s"/>`, lw, colour)
	fmt.Fprintf(&b, `<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`+"\n", lw/2, template.HTMLEscapeString(left), lw+rw/2, word)
	return b.Bytes()
}
