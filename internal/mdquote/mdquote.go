// Package mdquote writes text that may come from a target into Markdown
// that GitHub renders (a job summary, a pull-request comment, raw HTML
// allowed) so that none of it is read as markup: in code spans and fenced
// code blocks it cannot close, its controls and bidirectional characters
// escaped. The verdict's Markdown writers (summary.md, summary-short.md) use
// it, for run and proxy alike.
package mdquote

import (
	"strconv"
	"strings"
)

// Clean makes text from the target fit to show: valid UTF-8 (bad bytes a
// U+FFFD), and what would act rather than show (Hidden) written as Go
// escapes, such as \x1b and \u202e.
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, Hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if Hidden(r) {
			q := strconv.QuoteRune(r) // '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Hidden reports whether r acts rather than shows: a control (but tab and
// line feed, which are layout) or a bidirectional override or isolate.
func Hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || 0x7f <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}

// Span writes s as a CommonMark code span on one line (a line break written
// \n): its fence is longer than any run of backticks in s, and a space pads
// s when s starts or ends with a backtick, or with spaces at both ends.
func Span(s string) string {
	s = strings.ReplaceAll(Clean(s), "\n", `\n`)
	if s == "" {
		return "(empty)"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Cell writes s as a code span in a table cell, its pipes escaped (GFM
// splits a row at every other pipe, even inside a code span).
func Cell(s string) string {
	return strings.ReplaceAll(Span(s), "|", `\|`)
}

// Block writes s as a fenced code block whose fence no line of s closes.
func Block(s, info, indent string) string {
	s = Clean(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	var b strings.Builder
	b.WriteString(indent + fence + info + "\n")
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(indent + line + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
}
