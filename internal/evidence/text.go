package evidence

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text writes a string a target sent so that it prints as text: valid
// UTF-8 on one line, every control, separator and bidirectional character
// escaped (\n, \x1b, \u202e), a byte that is not UTF-8 as \xff. A
// backslash stays: evidence already quoted is not escaped twice.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isPlain reports whether s needs no escape.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unsafeRune reports whether printing r raw could act on a terminal or on
// the order or lines of the text around it.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // bidirectional marks
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // embeddings, overrides, isolates
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// Cut bounds s to at most n bytes, on a rune boundary, and says how long it
// was. Redact before cutting: a secret cut in two is no longer found.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:runeStart(s, n)], len(s))
}

// The bounds of one failure's evidence, in every driver: an expected or
// actual value, a detail or a message is cut at MaxText bytes, and past
// MaxDetails details the rest are counted.
const (
	MaxText    = 2 << 10
	MaxDetails = 16
)

// Safe is what every string from a target goes through before it is kept:
// redacted, then cut to n bytes, then escaped.
func (r *Redactor) Safe(s string, n int) string {
	kept, cut := Prefix(r, s, n)
	if cut {
		kept = fmt.Sprintf("%s… (%d bytes in all)", kept, len(s))
	}
	return Text(kept)
}

// Prefix is the first n bytes of b with every secret hidden, cut on a
// character's boundary; cut says whether anything was left out. Only what
// can show (and a margin) is redacted: a megabyte costs what a line does.
func Prefix[T ~string | ~[]byte](r *Redactor, b T, n int) (kept T, cut bool) {
	if limit := n + r.Margin(); len(b) > limit {
		b, cut = b[:runeStart(b, limit)], true
	}
	kept = T(r.String(string(b)))
	if len(kept) > n {
		kept, cut = kept[:runeStart(kept, n)], true
	}
	return kept, cut
}

// runeStart is i, or the start of the character i falls inside.
func runeStart[T ~string | ~[]byte](b T, i int) int {
	for i > 0 && i < len(b) && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}
