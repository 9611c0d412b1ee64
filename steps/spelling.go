package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/plantcheck/plantcheck/internal/generate"
)

// How a request is spelled. The spec fixes what a request says, not how its
// JSON is written or its HTTP framed: the presentations find a server that
// needs the suite's own habits (compact JSON, id first, an Accept header, a
// Content-Length), the departures one whose JSON reader takes what RFC 8259
// does not.

// presentations change how a valid request is written or framed, never
// what it says, by the name the feature writes after "presented with".
var presentations = map[string]func(r *request){
	"its members in reverse order": func(r *request) { slices.Reverse(r.Members) },
	"white space and line breaks between its tokens": func(r *request) {
		var b bytes.Buffer
		json.Indent(&b, r.Body(), " ", "\t")
		r.setRaw(append(append([]byte(" \r\n"), bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte("\r\n"))...), " \n"...))
	},
	"its keys written as \\u escapes": func(r *request) {
		r.setRaw(writeObject(r.Members, func(k string) string { return string(escapeAll(k)) }, nil))
	},
	"its name written as \\u escapes": func(r *request) {
		raw, _ := r.Get("name")
		if name := ""; len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &name) == nil {
			r.Set("name", escapeAll(name))
		}
	},
	"no Accept header":      func(r *request) { r.setHeader("Accept") },
	"the Accept header */*": func(r *request) { r.setHeader("Accept", "*/*") },
	"its body sent in chunks, without a Content-Length": func(r *request) { r.chunked = true },
	"no User-Agent header":                              func(r *request) { r.setHeader("User-Agent", "") }, // net/http's way to send none
}

// writeObject writes the members as a JSON-like object, each key written by
// key and each raw value by value (nil: as it is).
func writeObject(members []generate.Member, key func(string) string, value func(string) string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(key(m.Name) + ":")
		if value != nil {
			b.WriteString(value(string(m.Raw)))
		} else {
			b.Write(m.Raw)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// escapeAll writes s as a JSON string with every character a \u escape
// (a surrogate pair beyond the BMP).
func escapeAll(s string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	b.WriteByte('"')
	return b.Bytes()
}

// nameEndsWith writes the body with suffix at the end of the name, inside
// its quotes.
func nameEndsWith(suffix string) func(r *request) []byte {
	return func(r *request) []byte { b, _ := withNameSuffix(r.Body(), suffix); return b }
}

func withID(f func(id int64) string) func(r *request) []byte {
	return func(r *request) []byte {
		raw, _ := r.Get("id")
		id, _ := strconv.ParseInt(string(raw), 10, 64)
		c := request{Case: generate.Case{Members: slices.Clone(r.Members)}}
		c.Set("id", json.RawMessage(f(id)))
		return c.Body()
	}
}

func withMember(name, raw string) func(r *request) []byte {
	return func(r *request) []byte {
		return (&generate.Case{Members: append(slices.Clone(r.Members), generate.Member{Name: name, Raw: json.RawMessage(raw)})}).Body()
	}
}

// departures write a NewPlant body with one departure from RFC 8259, by
// the name the feature writes after "written with": what some lenient
// reader accepts, and a conformant service refuses (or, where the RFC
// leaves the matter to the reader, what is only noted).
var departures = map[string]func(r *request) []byte{
	// Not JSON: each is answered 400 with an Error record.
	"bytes after the object":          func(r *request) []byte { return append(r.Body(), "x"...) },
	"a second object after the first": func(r *request) []byte { return append(r.Body(), `{"id":1,"name":"second"}`...) },
	"a block comment":                 func(r *request) []byte { return append([]byte("{/* a comment */"), r.Body()[1:]...) },
	"a line comment":                  func(r *request) []byte { return append([]byte("{// a comment\n"), r.Body()[1:]...) },
	"single quotes around its strings": func(r *request) []byte {
		single := func(v string) string {
			if strings.HasPrefix(v, `"`) && !strings.ContainsAny(v, `'\`) {
				return "'" + v[1:len(v)-1] + "'"
			}
			return v
		}
		return writeObject(r.Members, func(k string) string { return "'" + k + "'" }, single)
	},
	"a comma after its last member": func(r *request) []byte {
		b := r.Body()
		return append(append(slices.Clone(b[:len(b)-1]), ','), '}')
	},
	"keys without quotes":                  func(r *request) []byte { return writeObject(r.Members, func(k string) string { return k }, nil) },
	"a member whose value is NaN":          withMember("height", "NaN"),
	"a member whose value is Infinity":     withMember("height", "Infinity"),
	"the id with a leading zero":           withID(func(id int64) string { return "0" + strconv.FormatInt(id, 10) }),
	"the id with a plus sign":              withID(func(id int64) string { return "+" + strconv.FormatInt(id, 10) }),
	"the id with a trailing decimal point": withID(func(id int64) string { return strconv.FormatInt(id, 10) + "." }),
	"the id in hexadecimal":                withID(func(id int64) string { return "0x" + strconv.FormatInt(id, 16) }),
	"a raw tab inside the name":            nameEndsWith("\tx"),
	"a raw line break inside the name":     nameEndsWith("\nx"),
	`the escape \' inside the name`:        nameEndsWith(`\'s`),
	"no closing brace":                     func(r *request) []byte { b := r.Body(); return slices.Clone(b[:len(b)-1]) },

	// Left by RFC 8259 to the reader: noted, never failed.
	"a byte order mark before the object":   func(r *request) []byte { return append([]byte("\xEF\xBB\xBF"), r.Body()...) },
	"the name given twice, with two values": withMember("name", `"a second name"`),
	"an escaped lone surrogate in the name": nameEndsWith(`\ud800`),
	"a byte that is not UTF-8 in the name":  nameEndsWith("\xff"),
}

func (s *Suite) theRequestIsPresentedWith(ctx context.Context, name string) error {
	apply, ok := presentations[name]
	if !ok {
		return &HarnessError{fmt.Errorf("%w: no presentation %q", ErrSuiteDefect, name)}
	}
	r := &stateOf(ctx).req
	apply(r)
	r.label = "a valid request presented with " + name
	return nil
}

func (s *Suite) theBodyIsWrittenWith(ctx context.Context, name string) error {
	write, ok := departures[name]
	if !ok {
		return &HarnessError{fmt.Errorf("%w: no departure from JSON %q", ErrSuiteDefect, name)}
	}
	r := &stateOf(ctx).req
	if _, ok := r.Get("name"); !ok {
		return &HarnessError{fmt.Errorf("%w: %q needs a body with a name", ErrSuiteDefect, name)}
	}
	r.setRaw(write(r))
	r.label = "a body written with " + name
	return nil
}

func (s *Suite) theFieldIsSentUnderTheKey(ctx context.Context, name, key string) error {
	r := &stateOf(ctx).req
	i := slices.IndexFunc(r.Members, func(m generate.Member) bool { return m.Name == name })
	if i < 0 {
		return &HarnessError{fmt.Errorf("%w: the body has no field %q to rename", ErrSuiteDefect, name)}
	}
	r.Members[i].Name = key
	return nil
}
