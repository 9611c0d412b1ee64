// Package shell writes the reproductions plantcheck prints (curl commands,
// reruns) as POSIX shell words: quoted so that nothing in them is read as
// code, with bytes a shell word cannot carry sent through printf, and every
// secret read from a variable, never written. It reads shell words too
// (Split), as the GitHub Action reads its args input: quotes honoured,
// nothing expanded.
package shell

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TokenVar is how a reproduction refers to the user's token: the variable
// plantcheck reads it from, never its value.
const TokenVar = "${PLANTCHECK_TOKEN}"

// ProxyUserinfoVar names the variable a reproduction or a rerun reads a
// proxy's user:password from: a proxy URL's credentials are never written.
const ProxyUserinfoVar = "PLANTCHECK_PROXY_USERINFO"

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

// RunBytes is the length from which Runs writes a run of one short text,
// repeated, as a command that makes it rather than as the bytes.
const RunBytes = 256

// runUnit bounds the text a run repeats.
const runUnit = 64

// Runs writes b as shell commands that print it, each on standard output
// in turn: printf for the text between runs, yes, head and tr for each run
// of RunBytes or more of one short text repeated (a long name, a
// padding). It returns false when b has no such run, or when what is left
// is not Printable or longer than limit: then b is not worth writing so.
func Runs(b []byte, limit int) ([]string, bool) {
	var cmds []string
	lit, litLen, runs := 0, 0, 0
	flush := func(end int) bool {
		if end > lit {
			if !Printable(b[lit:end]) {
				return false
			}
			litLen += end - lit
			cmds = append(cmds, "printf '%s' "+Quote(string(b[lit:end])))
		}
		return true
	}
	f := newRunFinder(b)
	for i := 0; i < len(b); {
		if litLen+i-lit > limit {
			// The text between runs is past the limit already: the text
			// up to the next run (or the end) holds it all.
			return nil, false
		}
		unit, n := f.at(i)
		if n == 0 {
			i++
			continue
		}
		if !flush(i) {
			return nil, false
		}
		runs++
		cmds = append(cmds, fmt.Sprintf("yes %s | head -n %d | tr -d '\\n'", Quote(string(unit)), n))
		i += len(unit) * n
		lit = i
	}
	if !flush(len(b)) || runs == 0 || litLen > limit {
		return nil, false
	}
	return cmds, true
}

// runFinder finds the runs of a text at places ever further on, each
// byte compared once for each length of unit.
type runFinder struct {
	b []byte
	// broken[p] is the first place j, at or after the last place asked
	// about, where b[j] differs from b[j+p] (len(b)-p when none does):
	// where a text repeated every p bytes breaks off.
	broken [runUnit + 1]int
}

func newRunFinder(b []byte) *runFinder {
	f := &runFinder{b: b}
	for p := range f.broken {
		f.broken[p] = -1
	}
	return f
}

// breaks is the first place j from i where b[j] differs from b[j+p]
// (len(b)-p when none does).
func breaks(b []byte, i, p int) int {
	j := i
	for j+p < len(b) && b[j] == b[j+p] {
		// A long run is compared a block at a time, up to the block
		// where it breaks off.
		k := min(RunBytes, len(b)-p-j)
		if !bytes.Equal(b[j:j+k], b[j+p:j+p+k]) {
			for b[j] == b[j+p] {
				j++
			}
			break
		}
		j += k
	}
	return j
}

// at finds the shortest text at b[i:] that b repeats from there for
// RunBytes or more, whole times, and how many; 0 when there is none, or
// when yes would not print it as it is (a line break, a leading "-").
// Each call's i is at least the last one's.
func (f *runFinder) at(i int) ([]byte, int) {
	b := f.b[i:]
	for p := 1; p <= runUnit && 2*p <= len(b); p++ {
		// p repeats for RunBytes or more when the first whole copies that
		// reach RunBytes are all the same: when b up to there is b moved
		// by p, up to where that breaks off.
		reach := (RunBytes + p - 1) / p * p
		if reach > len(b) {
			continue
		}
		if f.broken[p] < i {
			f.broken[p] = breaks(f.b, i, p)
		}
		if f.broken[p]-i < reach-p {
			continue
		}
		unit, n := b[:p], reach/p
		for (n+1)*p <= len(b) && bytes.Equal(b[n*p:(n+1)*p], unit) {
			n++
		}
		if unit[0] == '-' || bytes.IndexByte(unit, '\n') >= 0 || !Printable(unit) {
			return nil, 0
		}
		return unit, n
	}
	return nil, 0
}

// ErrSplit: a line Split cannot read as shell words.
var ErrSplit = errors.New("the line does not split into shell words")

// Split splits a line into words as a POSIX shell splits a command's
// arguments, and does nothing else: blanks and line breaks (a carriage
// return too) separate words; single quotes keep everything up to the next
// single quote; double quotes keep everything but a backslash before $, `,
// ", \ or a line break; a backslash outside quotes keeps the next byte (and
// drops a line break). Nothing is expanded or run: $VAR, $(...), backticks,
// globs and ~ are words as written. A quote never closed, a backslash at
// the end, or a NUL byte (no argument can hold one) is ErrSplit, saying
// where.
func Split(line string) ([]string, error) {
	if i := strings.IndexByte(line, 0); i >= 0 {
		return nil, fmt.Errorf("%w: a NUL byte at byte %d, which no argument can hold", ErrSplit, i+1)
	}
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case '\\':
			if i+1 == len(line) {
				return nil, fmt.Errorf("%w: it ends with a backslash (write '\\' for one)", ErrSplit)
			}
			i++
			if line[i] != '\n' {
				w.WriteByte(line[i])
				inWord = true
			}
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%w: the single quote at byte %d (%s) is never closed", ErrSplit, i+1, excerpt(line[i:]))
			}
			w.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case '"':
			start := i
			inWord = true
			for i++; ; i++ {
				if i == len(line) {
					return nil, fmt.Errorf("%w: the double quote at byte %d (%s) is never closed", ErrSplit, start+1, excerpt(line[start:]))
				}
				if line[i] == '"' {
					break
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
					i++
					if line[i] == '\n' {
						continue
					}
				}
				w.WriteByte(line[i])
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func excerpt(s string) string {
	const n = 24
	if len(s) > n {
		return strconv.Quote(s[:n]) + "..."
	}
	return strconv.Quote(s)
}
