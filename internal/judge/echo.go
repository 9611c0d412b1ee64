// The readings of an answer on its bytes alone (the exact echo, the Plant
// and Error records, the media type): given the bytes sent and the bytes
// answered, does the answer keep a rule? They know nothing of godog, of the
// target, or of the scenario that sent the request; Judge's list of checks
// calls them.

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
	// Unjudged says why the echo of this request cannot be judged (the
	// body is not one JSON object, a field is given twice, a string holds
	// an escaped lone surrogate); "" when it can.
	Unjudged string
}

// ReadSent reads the name and tag of a request body. It reads the body as
// RFC 8259 has it and refuses to guess where the RFC leaves the reader free:
// a repeated member (which value counts is the reader's choice) and an
// escaped lone surrogate (which no UTF-8 string can hold) leave the echo
// unjudged.
func ReadSent(body []byte) Sent { return readSent(body, nil) }

// readSent is ReadSent, given the body as the document's check decoded it
// (nil when it did not), which spares decoding it again.
func readSent(body []byte, decoded any) Sent {
	if !utf8.Valid(body) {
		return Sent{Unjudged: "the body is not JSON"}
	}
	if s, ok := readSentPlain(body, decoded); ok {
		return s
	}
	return readSentWalk(body)
}

// readSentPlain reads, with one json.Unmarshal, a body where the walk
// could find nothing to refuse: no backslash anywhere (so no escaped lone
// surrogate, and every key is written as it reads), and the text "name"
// and "tag" each written at most once, quotes included (without a
// backslash a string cannot hold a quote, so a key given twice would be
// written twice). It is what a size probe's body of a megabyte is; ok is
// false for any other body, and for one Unmarshal refuses (the walk then
// says why). decoded is the body as json.Unmarshal would read it, when
// it has been read already (nil when not).
func readSentPlain(body []byte, decoded any) (s Sent, ok bool) {
	if bytes.IndexByte(body, '\\') >= 0 || bytes.Count(body, []byte(`"name"`)) > 1 || bytes.Count(body, []byte(`"tag"`)) > 1 {
		return Sent{}, false
	}
	obj, _ := decoded.(map[string]any)
	if obj == nil && (json.Unmarshal(body, &obj) != nil || obj == nil) {
		return Sent{}, false
	}
	s.Name, s.HasName = obj["name"].(string)
	s.Tag, s.HasTag = obj["tag"].(string)
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

// jsonString decodes a JSON value that the decoder has read as valid UTF-8
// JSON, when it is a string. A string without a backslash holds its
// characters as written (RFC 8259, 7: only escapes differ), so it is taken
// as it is: the size probes' names run to a megabyte, and decoding one
// again costs two more passes over it.
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
// written, repeated keys included, each value as written; it stops when
// f returns false. A body that is not one JSON object, or has anything
// but white space after it, is ErrNotObject (when f stopped the walk,
// what follows is not read). It is the one top-level walk: the echo's reading of
// what was sent, and the request classifier's (package judge).
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
	// The object's end, and nothing after it but white space: the walk is
	// the body's check of being JSON at all, with no scan of its own.
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

// EchoFailure is one way a Plant record departs from the plant sent.
type EchoFailure struct {
	Rule     rules.RuleID // CREATE-NAME, CREATE-TAG, CREATE-NO-TAG or CREATE-NO-ID
	Expected string
	Actual   string
}

// echoIn judges the Plant record of a 200 answer against what was sent: the
// name and the tag are the very strings sent, code point by code point, no
// tag comes back when none was sent ("name, and tag where present"), and no
// id comes back at all ("The Plant record has no id field").
// obj is the answer read already (object); one that is not a JSON object
// (!ok) fails every field that was due; whether it is a Plant record at all
// is the document's to say. redact (nil: none) hides secrets in what the
// answer holds before it is quoted and cut.
func echoIn(sent Sent, obj map[string]json.RawMessage, ok bool, redact func(string) string) []EchoFailure {
	if sent.Unjudged != "" || !sent.HasName {
		return nil
	}
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
	if raw, present := obj["id"]; present {
		out = append(out, EchoFailure{rules.CreateNoID, "no id property (\"The Plant record has no id field\")", "id is " + jsonValue(raw, redact)})
	}
	return out
}

// jsonValue names a JSON value an answer holds: a string by its text,
// quoted once (`the string ""`, not the JSON text quoted again); any other
// value by its JSON text, quoted when it is not plain printable ASCII.
func jsonValue(raw json.RawMessage, redact func(string) string) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return "the string " + Quote(redact(s))
	}
	text := redact(string(raw))
	for _, c := range []byte(text) {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || len(text) > quoteBytes {
			return "the JSON value " + Quote(text)
		}
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
		// The very text of the string sent, UTF-8 with no escape in it: the
		// very string (the answer was read whole as valid JSON), known
		// without decoding a name that may run to a megabyte.
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
		// A long value is cut wherever it is shown short (the console, a
		// summary line): what departs leads, so that it is never the part cut.
		return name + ": " + Difference(want, got) + "; it is " + q
	}
	return name + " is " + q + ": " + Difference(want, got)
}

// leadBytes is the longest quoted value a departure is written after.
const leadBytes = 64

// Difference names how got departs from want, in the terms of the bugs
// that cause it where it recognises one, else by the first code point
// that differs.
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

// Quote writes s for a message: Go-quoted (so no control character, no
// invalid byte, no bidirectional override reaches a terminal raw), cut
// after a bound.
func Quote(s string) string {
	if len(s) <= quoteBytes {
		return strconv.Quote(s)
	}
	// Back off a rune cut in two (at most UTFMax-1 bytes); a string that
	// is not UTF-8 anyway is quoted as it comes.
	cut := s[:quoteBytes]
	for i := 0; i < utf8.UTFMax-1 && !utf8.ValidString(cut); i++ {
		cut = cut[:len(cut)-1]
	}
	if !utf8.ValidString(cut) {
		cut = s[:quoteBytes]
	}
	return fmt.Sprintf("%s … (%d bytes in all)", strconv.Quote(cut), len(s))
}
