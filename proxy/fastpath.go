package proxy

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/plantcheck/plantcheck/spec"
)

// Most exchanges through a proxy are alike: a create whose body is a flat
// JSON object of plain strings and integers, answered 200 with a flat
// object of plain strings. For those, a pass can be known for certain at a
// fraction of the validator's cost (which decodes the body twice, builds a
// tree of interface values and walks the compiled schema): the fast path
// reads the body once, without allocating, and checks it against the
// operation's schemas as the validator itself renders them before it
// compiles them (refs resolved), provided those schemas use nothing but
// type, required, properties and allOf, with properties of type string (no
// format) or integer (no format, int32 or int64).
//
// The fast path only ever says "this passes"; anything else, a doubt or a
// failure, goes to the validator, which stays the authority and says why.
// So it can never turn a violation into a pass unless it is wrong about a
// pass, which FuzzFastPath checks against the validator and check.Echo.
// A document it cannot read that way (a keyword it does not know, a
// reference left after rendering) turns it off for that schema: every
// exchange then goes to the validator.

// member is one member of a flat JSON object: its key and value as
// written, without quotes. Strings hold no escape, so what is written is
// what they are.
type member struct {
	key, value []byte
	str        bool  // the value is a string; else an integer
	n          int64 // an integer's value
}

// maxMembers bounds the members of a body the fast path reads; a larger
// object goes to the validator.
const maxMembers = 8

// flat is a body read as a flat JSON object.
type flat struct {
	members [maxMembers]member
	n       int
}

func (f *flat) get(key string) (*member, bool) {
	for i := range f.n {
		if string(f.members[i].key) == key {
			return &f.members[i], true
		}
	}
	return nil, false
}

// scanFlat reads body as a JSON object (RFC 8259) whose values are strings
// without escapes or integers (no fraction, no exponent) that fit in an
// int64, with at most maxMembers members, each key given once, every byte
// valid UTF-8. It returns false for anything else, and whenever in doubt.
func scanFlat(body []byte, f *flat) bool {
	f.n = 0
	if !utf8.Valid(body) {
		return false
	}
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return skipSpace(body, i+1) == len(body)
	}
	for {
		if f.n == maxMembers {
			return false
		}
		m := &f.members[f.n]
		var ok bool
		if m.key, i, ok = plainString(body, i); !ok {
			return false
		}
		for k := range f.n {
			if string(f.members[k].key) == string(m.key) {
				return false // a key given twice: the reader's choice
			}
		}
		i = skipSpace(body, i)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		i = skipSpace(body, i+1)
		if i >= len(body) {
			return false
		}
		if body[i] == '"' {
			m.str = true
			if m.value, i, ok = plainString(body, i); !ok {
				return false
			}
		} else {
			m.str = false
			if m.value, m.n, i, ok = plainInteger(body, i); !ok {
				return false
			}
		}
		f.n++
		i = skipSpace(body, i)
		if i >= len(body) {
			return false
		}
		switch body[i] {
		case ',':
			i = skipSpace(body, i+1)
		case '}':
			return skipSpace(body, i+1) == len(body)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a JSON string at b[i] that holds no escape and no
// control character; it returns its content and where it ends.
func plainString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, i, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, j, false
		}
	}
	return nil, len(b), false
}

// plainInteger reads a JSON number at b[i] that is an integer written
// without fraction or exponent (-?(0|[1-9][0-9]*)) and fits in an int64.
func plainInteger(b []byte, i int) ([]byte, int64, int, bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	digits := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	switch {
	case j == digits, b[digits] == '0' && j > digits+1:
		return nil, 0, j, false
	case j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E'):
		return nil, 0, j, false
	}
	n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	if err != nil {
		return nil, 0, j, false
	}
	return b[i:j], n, j, true
}

// propKind is what a schema asks of a property the fast path can check.
type propKind struct {
	str    bool  // a string; else an integer within lo..hi
	lo, hi int64 //
}

// objectSchema is a schema of the kind the fast path can check: an object
// with required properties, and properties of a known kind (each property
// may carry several, from allOf, all of which must hold).
type objectSchema struct {
	required []string
	props    map[string][]propKind
}

// conforms says whether f surely keeps s: every required property there,
// every property s knows of its kind; the others, which s leaves free, may
// be anything.
func (s *objectSchema) conforms(f *flat) bool {
	for _, r := range s.required {
		if _, ok := f.get(r); !ok {
			return false
		}
	}
	for i := range f.n {
		m := &f.members[i]
		for _, k := range s.props[string(m.key)] {
			switch {
			case k.str != m.str:
				return false
			case !m.str && (m.n < k.lo || m.n > k.hi):
				return false
			}
		}
	}
	return true
}

// fastPath holds the schemas of the document's operation the fast path can
// check; a nil schema means every such body goes to the validator.
type fastPath struct {
	request   *objectSchema
	responses map[int]*objectSchema
}

// newFastPath reads the operation's schemas from the validator's document,
// rendered as the validator renders them to compile them. What it cannot
// read is left to the validator.
func newFastPath(v *spec.Validator) *fastPath {
	fp := &fastPath{responses: map[int]*objectSchema{}}
	m := v.Model()
	if m == nil || m.Paths == nil || m.Paths.PathItems == nil {
		return fp
	}
	item := m.Paths.PathItems.GetOrZero(opPath)
	if item == nil || item.Post == nil || len(item.Parameters) > 0 || len(item.Post.Parameters) > 0 {
		return fp
	}
	op := item.Post
	version := helpers.VersionToFloat(m.Version)
	opts := config.NewValidationOptions()
	if rb := op.RequestBody; rb != nil && rb.Content != nil {
		if mt := rb.Content.GetOrZero("application/json"); mt != nil && mt.Schema != nil {
			fp.request = readSchema(mt.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody, opts, version)
		}
	}
	if op.Responses == nil || op.Responses.Codes == nil {
		return fp
	}
	for code, r := range op.Responses.Codes.FromOldest() {
		status, err := strconv.Atoi(code)
		if err != nil || status < 100 || status > 599 || r == nil || r.Headers != nil && r.Headers.Len() > 0 || r.Content == nil {
			continue
		}
		if mt := r.Content.GetOrZero("application/json"); mt != nil && mt.Schema != nil {
			if s := readSchema(mt.Schema.Schema(), schema_validation.SchemaValidationPurposeResponseBody, opts, version); s != nil {
				fp.responses[status] = s
			}
		}
	}
	return fp
}

// readSchema renders a schema as the validator does before compiling it,
// and reads it; nil when it holds anything the fast path does not know.
func readSchema(s *base.Schema, purpose schema_validation.SchemaValidationPurpose, opts *config.ValidationOptions, version float32) *objectSchema {
	if s == nil {
		return nil
	}
	c, err := schema_validation.CompileSchemaForValidation(s, purpose, opts, version)
	if err != nil || c == nil || len(c.RenderedJSON) == 0 {
		return nil
	}
	var raw any
	if json.Unmarshal(c.RenderedJSON, &raw) != nil {
		return nil
	}
	os := &objectSchema{props: map[string][]propKind{}}
	if err := os.read(raw, 0); err != nil {
		return nil
	}
	return os
}

// annotations are the keywords that do not constrain a value.
var annotations = map[string]bool{"description": true, "title": true, "$comment": true, "example": true, "examples": true}

// read adds an object schema's constraints (and those of its allOf) to s;
// an error names the first thing it does not know.
func (s *objectSchema) read(raw any, depth int) error {
	obj, ok := raw.(map[string]any)
	if !ok || depth > 8 {
		return fmt.Errorf("not a schema object")
	}
	for k, v := range obj {
		switch {
		case annotations[k]:
		case k == "type":
			if v != "object" {
				return fmt.Errorf("type %v", v)
			}
		case k == "required":
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("required %v", v)
			}
			for _, r := range list {
				name, ok := r.(string)
				if !ok {
					return fmt.Errorf("required %v", r)
				}
				s.required = append(s.required, name)
			}
		case k == "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("properties %v", v)
			}
			for name, p := range props {
				kind, err := readProperty(p)
				if err != nil {
					return fmt.Errorf("property %s: %w", name, err)
				}
				s.props[name] = append(s.props[name], kind)
			}
		case k == "allOf":
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("allOf %v", v)
			}
			for _, sub := range list {
				if err := s.read(sub, depth+1); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("keyword %s", k)
		}
	}
	return nil
}

// readProperty reads a property's schema: a string with no format, or an
// integer with no format, int32 or int64.
func readProperty(raw any) (propKind, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return propKind{}, fmt.Errorf("not a schema object")
	}
	var typ, format string
	for k, v := range obj {
		switch {
		case annotations[k]:
		case k == "type":
			if typ, ok = v.(string); !ok {
				return propKind{}, fmt.Errorf("type %v", v)
			}
		case k == "format":
			if format, ok = v.(string); !ok {
				return propKind{}, fmt.Errorf("format %v", v)
			}
		default:
			return propKind{}, fmt.Errorf("keyword %s", k)
		}
	}
	switch {
	case typ == "string" && format == "":
		return propKind{str: true}, nil
	case typ == "integer" && format == "int32":
		return propKind{lo: math.MinInt32, hi: math.MaxInt32}, nil
	case typ == "integer" && (format == "" || format == "int64"):
		return propKind{lo: math.MinInt64, hi: math.MaxInt64}, nil
	}
	return propKind{}, fmt.Errorf("type %q, format %q", typ, format)
}

// requestPasses says whether a request body surely keeps the operation's
// request schema, read into f. The caller has checked the rest of what the
// document asks of the request (its media type application/json, its
// credentials).
func (fp *fastPath) requestPasses(body []byte, f *flat) bool {
	return fp.request != nil && scanFlat(body, f) && fp.request.conforms(f)
}

// responsePasses says whether an answer surely keeps the document: its
// status documented with an application/json body, its Content-Type
// exactly that (once), its body a flat object that keeps the status's
// schema, read into f.
func (fp *fastPath) responsePasses(status int, header http.Header, body []byte, f *flat) bool {
	s := fp.responses[status]
	if s == nil {
		return false
	}
	ct := header["Content-Type"]
	return len(ct) == 1 && ct[0] == "application/json" && scanFlat(body, f) && s.conforms(f)
}

// echoPasses says whether the answer f surely echoes the request sent: the
// very name, and the very tag or none when none was sent, as check.Echo
// judges it. Both are flat objects, so their strings are as written.
func echoPasses(sent, answer *flat) bool {
	name, ok := sent.get("name")
	if !ok || !name.str {
		return false
	}
	if got, ok := answer.get("name"); !ok || !got.str || string(got.value) != string(name.value) {
		return false
	}
	tag, hasTag := sent.get("tag")
	got, answered := answer.get("tag")
	switch {
	case hasTag && !tag.str:
		return false
	case hasTag:
		return answered && got.str && string(got.value) == string(tag.value)
	}
	return !answered
}
