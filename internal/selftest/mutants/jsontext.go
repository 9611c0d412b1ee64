package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file holds the lenient readers of the mutants that accept bodies
// that are not JSON: each turns such a body into the JSON its real-world
// original would have read it as, so that the reference can answer it. They
// work on a rough lexing of the text, which is all a lenient reader does.

// token is a piece of a body that may not be JSON.
type token struct {
	// kind is '"' for a double-quoted string, '\'' for a single-quoted
	// one, '/' for a comment, ' ' for white space, 'w' for a word (a
	// number, a literal or anything else between delimiters), or the
	// structural character itself: { } [ ] : ,
	kind byte
	text string
}

// lex splits s into tokens; joined, they are s again. A string or comment
// left open runs to the end of s.
func lex(s string) []token {
	var toks []token
	for i := 0; i < len(s); {
		c, j, kind := s[i], i+1, s[i]
		switch {
		case c == '"' || c == '\'':
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
		case strings.HasPrefix(s[i:], "//"):
			kind, j = '/', len(s)
			if end := strings.IndexByte(s[i:], '\n'); end >= 0 {
				j = i + end
			}
		case strings.HasPrefix(s[i:], "/*"):
			kind, j = '/', len(s)
			if end := strings.Index(s[i+2:], "*/"); end >= 0 {
				j = i + 2 + end + 2
			}
		case strings.IndexByte("{}[]:,", c) >= 0:
		case isSpace(c):
			kind = ' '
			for j < len(s) && isSpace(s[j]) {
				j++
			}
		default:
			kind = 'w'
			for j < len(s) && !isSpace(s[j]) && strings.IndexByte("{}[]:,\"'/", s[j]) < 0 {
				j++
			}
		}
		toks = append(toks, token{kind, s[i:j]})
		i = j
	}
	return toks
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func join(toks []token) []byte {
	var b bytes.Buffer
	for _, t := range toks {
		b.WriteString(t.text)
	}
	return b.Bytes()
}

// significant is the index and kind of the nearest token from i in
// direction step (+1 or -1) that is neither white space nor a comment, or
// -1 and 0.
func significant(toks []token, i, step int) (int, byte) {
	for i += step; i >= 0 && i < len(toks); i += step {
		if toks[i].kind != ' ' && toks[i].kind != '/' {
			return i, toks[i].kind
		}
	}
	return -1, 0
}

// memberKey is the key of the object member whose value is toks[i], when
// toks[i] follows `"key":`.
func memberKey(toks []token, i int) (string, bool) {
	colon, colonKind := significant(toks, i, -1)
	key, keyKind := significant(toks, colon, -1)
	if colonKind != ':' || keyKind != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal([]byte(toks[key].text), &s) == nil
}

// topLevel calls f with the index and depth of nesting (1 inside the
// outermost object or array) of every word.
func topLevel(toks []token, f func(i, depth int)) {
	depth := 0
	for i, t := range toks {
		switch t.kind {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case 'w':
			f(i, depth)
		}
	}
}

// firstValue is the first JSON value of body, as a streaming decoder reads
// it, leaving what follows unread.
func firstValue(body []byte) []byte {
	var v json.RawMessage
	if json.NewDecoder(bytes.NewReader(body)).Decode(&v) != nil {
		return nil
	}
	return v
}

// json5 reads body as JSON5: comments become white space, single-quoted
// strings double-quoted ones, unquoted keys quoted, and trailing commas go.
func json5(body []byte) []byte {
	toks := lex(string(body))
	var b bytes.Buffer
	for i, t := range toks {
		switch _, next := significant(toks, i, 1); {
		case t.kind == '/':
			b.WriteByte(' ')
		case t.kind == '\'':
			b.WriteString(doubleQuoted(t.text))
		case t.kind == ',' && (next == '}' || next == ']'):
		case t.kind == 'w' && next == ':' && identifier.MatchString(t.text):
			b.WriteString(strconv.Quote(t.text))
		default:
			b.WriteString(t.text)
		}
	}
	return b.Bytes()
}

// stripComments reads body as strip-json-comments does: each comment,
// outside strings, becomes white space; nothing else changes.
func stripComments(body []byte) []byte {
	return retext(body, '/', func(string) string { return " " })
}

// retext is body with the text of each token of kind rewritten by f.
func retext(body []byte, kind byte, f func(string) string) []byte {
	toks := lex(string(body))
	for i, t := range toks {
		if t.kind == kind {
			toks[i].text = f(t.text)
		}
	}
	return join(toks)
}

func doubleQuoted(s string) string {
	if len(s) < 2 || s[len(s)-1] != '\'' {
		return s // left open: no reader repairs that
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 1; i < len(s)-1; i++ {
		switch c := s[i]; {
		case c == '\\' && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\':
			b.WriteString(s[i : i+2])
			i++
		case c == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// pythonFloats reads body as Python's json.loads does, NaN, Infinity and
// -Infinity being numbers. A member of the outermost object with such a
// value is dropped (an unknown one is ignored; a known one is then
// missing); one deeper down becomes null.
func pythonFloats(body []byte) []byte {
	toks := lex(string(body))
	var dropped []string
	topLevel(toks, func(i, depth int) {
		if t := toks[i].text; t != "NaN" && t != "Infinity" && t != "-Infinity" {
			return
		}
		toks[i].text = "null"
		if key, ok := memberKey(toks, i); ok && depth == 1 {
			dropped = append(dropped, key)
		}
	})
	var obj map[string]json.RawMessage
	if json.Unmarshal(join(toks), &obj) != nil || obj == nil {
		return join(toks)
	}
	for _, key := range dropped {
		delete(obj, key)
	}
	b, _ := json.Marshal(obj)
	return b
}

// looseID reads the id of the outermost object with strconv.ParseInt(s, 0,
// 64): +5, 0x1F, 0o17, 0b101, 1_000 and 0123 (octal) are numbers.
func looseID(body []byte) []byte {
	toks := lex(string(body))
	topLevel(toks, func(i, depth int) {
		if key, ok := memberKey(toks, i); ok && key == "id" && depth == 1 {
			if n, err := strconv.ParseInt(toks[i].text, 0, 64); err == nil {
				toks[i].text = strconv.FormatInt(n, 10)
			}
		}
	})
	return join(toks)
}

// escapeControls escapes the raw control characters (U+0000 to U+001F) of
// strings, which JSON forbids there.
func escapeControls(body []byte) []byte { return retext(body, '"', controlEscapes.Replace) }

var controlEscapes = func() *strings.Replacer {
	var pairs []string
	for c := range 0x20 {
		pairs = append(pairs, string(rune(c)), fmt.Sprintf(`\u%04x`, c))
	}
	return strings.NewReplacer(pairs...)
}()

// closeObject adds the closing brace to a body that opens an object and
// stops.
func closeObject(body []byte) []byte {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	return append(t[:len(t):len(t)], '}')
}
