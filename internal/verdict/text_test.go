package verdict

import (
	"testing"
)

// TestBound: a value cut for the console ends between words, never
// inside a bracket or a quotation it opened, and is marked.
func TestBound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"status 201", 60, "status 201"},
		{"a response the document does not describe (1 violation(s))", 50, "a response the document does not describe…"},
		{"25 of 25 generated cases failed GEN-VALID (seed 160955363 reproduces them)", 55, "25 of 25 generated cases failed GEN-VALID…"},
		{`got tag "a long tag value" instead`, 20, "got tag…"},
		{"expected a response the document describes: 200 with a Plant record or 400", 60, "expected a response the document describes: 200 with a…"},
		{"averyveryverylongwordwithoutanyspace", 10, "averyve…"},
	} {
		if got := bound(c.in, c.n, true); got != c.want || len(got) > c.n {
			t.Errorf("bound(%q, %d, true) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// TestWrapWords: lines break between words within the width, each after
// the first indented, and nothing is lost.
func TestWrapWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in           string
		start, width int
		want         string
	}{
		{"one two three", 0, 100, "one two three"},
		{"one two three four", 3, 12, "one two\n  three four"},
		{"averyveryverylongword x", 0, 5, "averyveryverylongword\n  x"},
	} {
		if got := wrapAt(c.in, " ", c.start, c.width, "  "); got != c.want {
			t.Errorf("wrapAt(%q, %d, %d) = %q, want %q", c.in, c.start, c.width, got, c.want)
		}
	}
}

// TestCutBody: a request or response line too long for the console is cut
// inside its quoted body, the cut marked and the quote closed after it, so
// that what follows the body stays; the line never ends inside a quote.
func TestCutBody(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{`400 text/html, body "short" (after 2ms)`, 60, `400 text/html, body "short" (after 2ms)`},
		{`400 text/html, body "<!DOCTYPE html>\n<html lang=\"en\">" (after 2ms)`, 40, `400 text/html, body "<!D…" (after 2ms)`},
		{`400 text/html, body "<!DOCTYPE html>\n<html>" … (1012 bytes in all) (after 2ms)`, 64, `400 text/html, body "<!D…" … (1012 bytes in all) (after 2ms)`},
		{`POST /plants [Content-Type: application/json] and no body at all, a long line`, 30, `POST /plants [Content-Type:…`},
	} {
		got := cutBody(c.in, c.n)
		if len(got) > c.n {
			t.Errorf("cutBody(%q, %d) = %q: longer than %d", c.in, c.n, got, c.n)
		}
		if got != c.want {
			t.Errorf("cutBody(%q, %d)\n = %q\nwant %q", c.in, c.n, got, c.want)
		}
	}
}
