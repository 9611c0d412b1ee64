// Package shell writes the reproductions plantcheck prints (curl commands,
// reruns) as POSIX shell words: quoted so that nothing in them is read as
// code, with bytes a shell word cannot carry sent through printf, and every
// secret read from a variable, never written.
package shell

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TokenVar is how a reproduction refers to the user's token: the variable
// plantcheck reads it from, never its value.
const TokenVar = "${PLANTCHECK_TOKEN}"

// Quote writes s as one single-quoted shell word.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Printable reports whether b can be written in a quoted shell word as it
// is, and printed: UTF-8 whose every character prints (no control, no line
// break, no bidirectional override, which would reorder what a terminal
// shows).
func Printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// PrintfEscape writes b as a printf format that prints b exactly, in
// printable ASCII only.
func PrintfEscape(b []byte) string {
	var out strings.Builder
	for _, c := range b {
		switch {
		case c == '%':
			out.WriteString("%%")
		case c == '\\':
			out.WriteString(`\\`)
		case c >= ' ' && c < 0x7f && c != '\'':
			out.WriteByte(c)
		default:
			fmt.Fprintf(&out, "\\%03o", c)
		}
	}
	return out.String()
}

// HeaderVar names the environment variable a reproduction reads an extra
// header's value from: PLANTCHECK_HEADER_X_API_KEY for X-Api-Key.
func HeaderVar(name string) string {
	return "PLANTCHECK_HEADER_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}
