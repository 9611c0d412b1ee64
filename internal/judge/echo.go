// The readings of an answer on its bytes alone (the exact echo, the Plant
// and Error records, the media type), which Judge's checks call.

package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Sent is what a create request asked to store: its name and tag, as
// decoded JSON strings.
type Sent struct {
	Name, Tag       string
	HasName, HasTag bool
	// Unjudged says why the echo of this request cannot be judged; "" when
	// it can.
	Unjudged string
}

// ReadSent reads the name and tag of a request body; where RFC 8259 leaves
// the reader free (a repeated member, an escaped lone surrogate) it does
// not guess: the echo is left unjudged.
func ReadSent(body []byte) Sent {
	s, _ := readSent(body, nil)
	return s
}

// readSent is ReadSent, given the body as the document's check decoded it
// (nil when it did not). plain says the body has no escape, so that the
// name and tag are their JSON text as written (echoed reads an answer by
// that).
func readSent(body []byte, decoded any) (s Sent, plain bool) {
	if !utf8.Valid(body) {
		return Sent{Unjudged: "the body is not JSON"}, false
	}
	if s, ok := readSentPlain(body, decoded); ok {
		return s, true
	}
	return readSentWalk(body), false
}

// readSentPlain reads, with one json.Unmarshal, a body where the walk
// could find nothing to refuse (a size probe's megabyte): no backslash
// anywhere (so every key and string is written as it reads) and "name"
// and "tag" each written at most once. ok is false for any other body,
// and for one Unmarshal refuses (the walk then says why).
func readSentPlain(body []byte, decoded any) (s Sent, ok bool) {
	if bytes.IndexByte(body, '\\') >= 0 || bytes.Count(body, []byte(`"name"`)) > 1 || bytes.Count(body, []byte(`"tag"`)) > 1 {
		return Sent{}, false
	}
	if obj, _ := decoded.(map[string]any); obj != nil {
		s.Name, s.HasName = obj["name"].(string)
		s.Tag, s.HasTag = obj["tag"].(string)
		return s, true
	}
	// The document's verdict was kept from an earlier check, which leaves
	// the body undecoded. Each value is kept as its text: with no escape in
	// the body, a string's text between its quotes is its value.
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return Sent{}, false
	}
	s.Name, s.HasName = jsonString(obj["name"])
	s.Tag, s.HasTag = jsonString(obj["tag"])
	return s, true
}

func readSentWalk(body []byte) Sent {
	var s Sent
	seen := map[string]bool{}
	err := EachMember(body, func(key string, raw json.RawMessage) bool {
		if key != "name" && key != "tag" {
			return true
		}
		if seen[key] {
			s.Unjudged = fmt.Sprintf("the body gives %q twice, and RFC 8259 leaves to the reader which value counts", key)
			return false
		}
		seen[key] = true
		if hasLoneSurrogate(raw) {
			s.Unjudged = fmt.Sprintf("%q holds an escaped lone surrogate, which RFC 8259 leaves to the reader", key)
			return false
		}
		v, ok := jsonString(raw)
		if !ok {
			return true // not a string: the request is invalid, no echo is due
		}
		if key == "name" {
			s.Name, s.HasName = v, true
		} else {
			s.Tag, s.HasTag = v, true
		}
		return true
	})
	switch {
	case err != nil && !json.Valid(body):
		return Sent{Unjudged: "the body is not JSON"}
	case err != nil:
		return Sent{Unjudged: "the body is not a JSON object"}
	}
	return s
}

// jsonString decodes a JSON value read as valid UTF-8 JSON, when it is a
// string; one without a backslash is taken as written (RFC 8259, 7), which
// spares a megabyte name two more passes.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

var ErrNotObject = errors.New("the body is not a JSON object")

// EachMember walks the top-level members of a JSON object in the order
// written, repeated keys included, each value as written, until f returns
// false. A body that is not one JSON object, or has anything but white
// space after it, is ErrNotObject (unless f stopped the walk first).
func EachMember(body []byte, f func(key string, raw json.RawMessage) bool) error {
	d := json.NewDecoder(bytes.NewReader(body))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return ErrNotObject
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return ErrNotObject
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return ErrNotObject
		}
		if !f(key, raw) {
			return nil
		}
	}
	// The object's end, and nothing after it: the walk is the JSON check.
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return ErrNotObject
	}
	if _, err := d.Token(); err != io.EOF {
		return ErrNotObject
	}
	return nil
}

// hasLoneSurrogate reports whether a raw JSON string escapes a UTF-16
// surrogate that is not half of a pair.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // an escaped character, perhaps a backslash: skip it
			continue
		}
		u, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		if err != nil {
			return false // json.Valid let it through, so this cannot be
		}
		switch {
		case u >= 0xDC00 && u <= 0xDFFF:
			return true // a low half with no high half before it
		case u >= 0xD800 && u <= 0xDBFF:
			next := raw[i+6:]
			if len(next) < 6 || next[0] != '\\' || next[1] != 'u' {
				return true
			}
			lo, err := strconv.ParseUint(string(next[2:6]), 16, 16)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

// echoed reads an answer that is, byte for byte, the Plant record of the
// name and tag of a plain body (readSent) as encoding/json writes it,
// {"name":"…"} or {"name":"…","tag":"…"}, white space around it allowed:
// such a text is an object of those members, known without decoding a
// name that may run to a megabyte. ok is false for any other answer,
// which object reads.
func echoed(body []byte, s Sent) (obj map[string]json.RawMessage, ok bool) {
	t := bytes.Trim(body, " \t\r\n")
	if !s.HasName || !bytes.HasPrefix(t, []byte(`{"name":"`)) {
		return nil, false
	}
	name, rest, ok := cutString(t[len(`{"name":`):], s.Name)
	if !ok {
		return nil, false
	}
	if string(rest) == "}" {
		return map[string]json.RawMessage{"name": name}, true
	}
	if !s.HasTag || !bytes.HasPrefix(rest, []byte(`,"tag":"`)) {
		return nil, false
	}
	tag, rest, ok := cutString(rest[len(`,"tag":`):], s.Tag)
	if !ok || string(rest) != "}" {
		return nil, false
	}
	return map[string]json.RawMessage{"name": name, "tag": tag}, true
}

// cutString cuts from the front of t the JSON string literal of v, which
// holds no character a literal must escape (a plain body's string).
func cutString(t []byte, v string) (lit json.RawMessage, rest []byte, ok bool) {
	n := len(v) + 2
	if len(t) < n || t[0] != '"' || string(t[1:n-1]) != v || t[n-1] != '"' {
		return nil, nil, false
	}
	return json.RawMessage(t[:n]), t[n:], true
}

// EchoFailure is one way a Plant record departs from the plant sent.
type EchoFailure struct {
	Rule     rules.RuleID // CREATE-NAME, CREATE-TAG or CREATE-NO-TAG
	Expected string
	Actual   string
}

// echoIn judges the Plant record of a 200 answer, obj (an object when ok),
// against what was sent (a name at least: judgeEcho): the very name and tag
// sent, code point by code point, and no tag when none was sent (the id is
// noID's). redact hides secrets in what it quotes.
func echoIn(sent Sent, obj map[string]json.RawMessage, ok bool, redact func(string) string) []EchoFailure {
	if !ok {
		out := []EchoFailure{{rules.CreateName, "name " + Quote(sent.Name), NotAnObject}}
		if sent.HasTag {
			out = append(out, EchoFailure{rules.CreateTag, "tag " + Quote(sent.Tag), NotAnObject})
		}
		return out
	}
	var out []EchoFailure
	if f := field(obj, "name", sent.Name, redact); f != "" {
		out = append(out, EchoFailure{rules.CreateName, "name " + Quote(sent.Name) + " (the very string sent)", f})
	}
	switch raw, present := obj["tag"]; {
	case sent.HasTag:
		if f := field(obj, "tag", sent.Tag, redact); f != "" {
			out = append(out, EchoFailure{rules.CreateTag, "tag " + Quote(sent.Tag) + " (the very string sent)", f})
		}
	case present:
		out = append(out, EchoFailure{rules.CreateNoTag, "no tag property (none was sent)", "tag is " + jsonValue(raw, redact)})
	}
	return out
}

// jsonValue names a JSON value an answer holds: a string by its text,
// quoted once; any other by its JSON text, quoted unless plain ASCII.
func jsonValue(raw json.RawMessage, redact func(string) string) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return "the string " + Quote(redact(s))
	}
	text := redact(string(raw))
	if len(text) > quoteBytes || strings.ContainsFunc(text, func(r rune) bool { return r <= ' ' || r >= 0x7f || r == '"' || r == '\\' }) {
		return "the JSON value " + Quote(text)
	}
	return "the JSON value " + text
}

// field says how obj[name] departs from the string want; "" when it is
// that very string.
func field(obj map[string]json.RawMessage, name, want string, redact func(string) string) string {
	raw, ok := obj[name]
	if !ok {
		return name + " is missing"
	}
	if len(raw) >= 2 && raw[0] == '"' && string(raw[1:len(raw)-1]) == want && bytes.IndexByte(raw, '\\') < 0 && utf8.ValidString(want) {
		// The very text sent, with no escape: known without decoding a
		// name that may run to a megabyte.
		return ""
	}
	var got string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &got) != nil {
		return name + " is " + jsonValue(raw, redact) + ", not a string"
	}
	if got == want {
		return ""
	}
	q := Quote(redact(got))
	if len(q) > leadBytes {
		// A long value is cut where it is shown short: what departs leads.
		return name + ": " + Difference(want, got) + "; it is " + q
	}
	return name + " is " + q + ": " + Difference(want, got)
}

// leadBytes is the longest quoted value a departure is written after.
const leadBytes = 64

// Difference names how got departs from want: by the bug that causes it
// where it recognises one, else by the first code point that differs.
func Difference(want, got string) string {
	w, g := []rune(want), []rune(got)
	switch {
	case strings.TrimSpace(want) == got:
		return "white space trimmed from its edges"
	case len(g) < len(w) && strings.HasPrefix(want, got):
		return fmt.Sprintf("cut to its first %d of %d characters", len(g), len(w))
	case html.UnescapeString(got) == want:
		return "HTML-escaped"
	case strings.EqualFold(want, got):
		return "its letter case changed"
	case strings.ReplaceAll(want, "\x00", "") == got:
		return "NUL characters removed"
	}
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	switch {
	case i == len(g):
		return fmt.Sprintf("%d characters, %d sent: it ends after character %d", len(g), len(w), i)
	case i == len(w):
		return fmt.Sprintf("%d characters, %d sent: it goes on after character %d with U+%04X", len(g), len(w), i, g[i])
	}
	return fmt.Sprintf("character %d differs: U+%04X sent, U+%04X answered", i+1, w[i], g[i])
}

const quoteBytes = 512

// Quote writes s for a message: Go-quoted (nothing reaches a terminal
// raw), cut after a bound.
func Quote(s string) string {
	if len(s) <= quoteBytes {
		return strconv.Quote(s)
	}
	// Back off a rune cut in two; a string not UTF-8 anyway is kept.
	cut := s[:quoteBytes]
	for i := 0; i < utf8.UTFMax-1 && !utf8.ValidString(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	if !utf8.ValidString(cut) {
		cut = s[:quoteBytes]
	}
	return fmt.Sprintf("%s … (%d bytes in all)", strconv.Quote(cut), len(s))
}
