// Package generate makes request bodies from the document's schema rather
// than from fields written into the code: valid NewPlant records across
// each property's type and format, and invalid bodies that each break one
// rule of the schema. A change to the document (a new optional property, a
// new required one) changes what is generated. Generation is deterministic
// for a given random source, so a seed reproduces a run byte for byte; a
// failing case can be shrunk to its smallest form that still fails.
package generate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/plantcheck/plantcheck/spec"
)

// Property is one property of the request schema.
type Property struct {
	Name     string
	Type     string // integer, number, string, boolean, object, array
	Format   string // int32, int64, ...
	Required bool
	// Description is the schema's, and Constraints the keywords that bound
	// the value beyond its type and format ("minLength 1, maxLength 64";
	// "" for none): what the living documentation's field tables show.
	Description, Constraints string
}

// Shape is what the request schema asks of a body.
type Shape struct {
	Schema     string // its name, such as NewPlant
	Properties []Property
}

// Of reads the shape of the JSON request body of method path in v's
// document, for callers that name no libopenapi type (spec.ModelOf says
// why).
func Of(v *spec.Validator, method, path string) (*Shape, error) {
	return FromDocument(spec.ModelOf(v), method, path)
}

// FromDocument reads the shape of the JSON request body of method path
// (through allOf).
func FromDocument(doc *v3.Document, method, path string) (*Shape, error) {
	if doc == nil || doc.Paths == nil || doc.Paths.PathItems == nil {
		return nil, fmt.Errorf("the document has no paths")
	}
	item := doc.Paths.PathItems.GetOrZero(path)
	if item == nil {
		return nil, fmt.Errorf("the document has no path %s", path)
	}
	op := item.GetOperations().GetOrZero(strings.ToLower(method))
	if op == nil {
		return nil, fmt.Errorf("the document has no operation %s %s", method, path)
	}
	if op.RequestBody == nil || op.RequestBody.Content == nil || op.RequestBody.Content.GetOrZero("application/json") == nil {
		return nil, fmt.Errorf("%s %s has no application/json request body", method, path)
	}
	sh, err := ShapeOf(op.RequestBody.Content.GetOrZero("application/json").Schema)
	if err != nil {
		return nil, fmt.Errorf("the body schema of %s %s: %w", method, path, err)
	}
	return sh, nil
}

// ShapeOf reads the properties of an object schema, through allOf.
func ShapeOf(sp *base.SchemaProxy) (*Shape, error) {
	if sp == nil {
		return nil, fmt.Errorf("no schema")
	}
	sh := &Shape{Schema: refName(sp)}
	if err := collect(sh, sp, map[string]int{}, 0); err != nil {
		return nil, err
	}
	if len(sh.Properties) == 0 {
		return nil, fmt.Errorf("schema %s has no properties", sh.Schema)
	}
	return sh, nil
}

func refName(sp *base.SchemaProxy) string {
	ref := sp.GetReference()
	return ref[strings.LastIndex(ref, "/")+1:]
}

// collect adds sp's properties to sh. It is a function, not a method: a
// Shape's methods name no libopenapi type (spec.ModelOf says why).
func collect(sh *Shape, sp *base.SchemaProxy, seen map[string]int, depth int) error {
	if depth > 16 {
		return fmt.Errorf("the body schema nests allOf too deeply")
	}
	s := sp.Schema()
	if s == nil {
		return fmt.Errorf("schema %s: %v", refName(sp), sp.GetBuildError())
	}
	for _, sub := range s.AllOf {
		if err := collect(sh, sub, seen, depth+1); err != nil {
			return err
		}
	}
	// A property named again (by a later allOf member) is described anew.
	at := func(name string) *Property {
		if _, ok := seen[name]; !ok {
			seen[name] = len(sh.Properties)
			sh.Properties = append(sh.Properties, Property{Name: name})
		}
		return &sh.Properties[seen[name]]
	}
	if s.Properties != nil {
		for name, p := range s.Properties.FromOldest() {
			q := at(name)
			q.Type, q.Format, q.Description, q.Constraints = "", "", "", ""
			if ps := p.Schema(); ps != nil {
				if len(ps.Type) > 0 {
					q.Type = ps.Type[0]
				}
				q.Format, q.Description, q.Constraints = ps.Format, ps.Description, strings.Join(constraints(ps), ", ")
			}
		}
	}
	for _, name := range s.Required {
		at(name).Required = true
	}
	return nil
}

// constraints names the keywords of a schema that bound its value beyond
// its type and format, each with its value.
func constraints(s *base.Schema) []string {
	var out []string
	num := func(kw string, v *float64) {
		if v != nil {
			out = append(out, kw+" "+strconv.FormatFloat(*v, 'f', -1, 64))
		}
	}
	length := func(kw string, v *int64) {
		if v != nil {
			out = append(out, kw+" "+strconv.FormatInt(*v, 10))
		}
	}
	num("minimum", s.Minimum)
	num("maximum", s.Maximum)
	length("minLength", s.MinLength)
	length("maxLength", s.MaxLength)
	if s.Pattern != "" {
		out = append(out, "pattern "+s.Pattern)
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, n := range s.Enum {
			vals[i] = n.Value
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	return out
}

// Kind says what a case claims to be.
type Kind int

const (
	Typical Kind = iota // a valid body with ordinary values
	// Boundary is a valid body with a value at an edge of its type: the
	// extremes of int64, the empty string, a long or unusual string, an
	// unknown extra property.
	Boundary
	Invalid // a body that breaks exactly one rule of the schema
)

func (k Kind) String() string { return [...]string{"typical", "boundary", "invalid"}[k] }

// Member is one property of a generated body, as raw JSON.
type Member struct {
	Name string
	Raw  json.RawMessage
}

// Case is one generated body.
type Case struct {
	Kind     Kind
	Class    string // what the case is, such as `"tag" is a boolean`
	Property string // the property the case turns on, "" for the whole body
	// PastBound: an invalid integer one past a bound of its format, which
	// no shrink makes smaller.
	PastBound bool
	// Members is the body, an object; unless Raw is set, which is then the
	// body (a body that is not an object).
	Members []Member
	Raw     []byte
}

func (c *Case) Body() []byte {
	if c.Raw != nil {
		return c.Raw
	}
	var b bytes.Buffer
	size := 2
	for _, m := range c.Members {
		size += len(m.Name) + len(m.Raw) + 4 // the quotes, the colon, the comma
	}
	b.Grow(size) // a size probe's body runs to a megabyte: one allocation
	b.WriteByte('{')
	for i, m := range c.Members {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.Raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Set gives the member name the value raw, added last when the body has none.
func (c *Case) Set(name string, raw json.RawMessage) {
	if i := slices.IndexFunc(c.Members, func(m Member) bool { return m.Name == name }); i >= 0 {
		c.Members[i].Raw = raw
	} else {
		c.Members = append(c.Members, Member{name, raw})
	}
}

func (c *Case) Get(name string) (json.RawMessage, bool) {
	if i := slices.IndexFunc(c.Members, func(m Member) bool { return m.Name == name }); i >= 0 {
		return c.Members[i].Raw, true
	}
	return nil, false
}

// Generator makes cases for a shape from a random source.
type Generator struct {
	Shape *Shape
	Rand  *rand.Rand
	// ID, when set, draws the value of the int64 property IDProperty
	// ("id"), an identifier unique to the run (the suite's fresh ids);
	// nil draws anywhere in int64.
	ID         func() int64
	IDProperty string
}

// Scripts of the strings generated: each is a pool of characters.
var scripts = [][]rune{
	[]rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -'"),
	[]rune("àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿßœŒÉÈÇ"),
	[]rune("植物緑葉花木森林草竹蘭菊桜梅松杉苔"),
	[]rune("🌿🌱🌵🌴🌳🌲🍀🌸🌺🌻🌼🪴🍃"),
	[]rune("نبتةورقةزهرةشجرةעלהפרחעץצמח"),
}

func (g *Generator) text(minLen, maxLen int) string {
	pool := scripts[g.Rand.IntN(len(scripts))]
	n := minLen + g.Rand.IntN(maxLen-minLen+1)
	r := make([]rune, n)
	for i := range r {
		r[i] = pool[g.Rand.IntN(len(pool))]
	}
	return string(r)
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func (g *Generator) integer(p Property, boundary bool) json.RawMessage {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if p.Format == "int32" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if p.Name == g.IDProperty && g.ID != nil {
		if !boundary {
			return json.RawMessage(strconv.FormatInt(g.ID(), 10))
		}
		// Near an edge, yet fresh: a run must not reuse an id.
		off := g.ID() % (1 << 30)
		switch g.Rand.IntN(3) {
		case 0:
			return json.RawMessage(strconv.FormatInt(hi-off, 10))
		case 1:
			return json.RawMessage(strconv.FormatInt(lo+off, 10))
		default:
			return json.RawMessage(strconv.FormatInt(-g.ID(), 10))
		}
	}
	if boundary {
		return json.RawMessage(strconv.FormatInt([]int64{lo, hi, 0, -1}[g.Rand.IntN(4)], 10))
	}
	return json.RawMessage(strconv.FormatInt(g.Rand.Int64N(1<<31), 10))
}

// value draws a valid value of p.
func (g *Generator) value(p Property, boundary bool) json.RawMessage {
	switch p.Type {
	case "integer":
		return g.integer(p, boundary)
	case "number":
		return json.RawMessage(strconv.FormatFloat(g.Rand.Float64()*1000, 'g', -1, 64))
	case "boolean":
		return json.RawMessage(strconv.FormatBool(g.Rand.IntN(2) == 0))
	case "array":
		return json.RawMessage("[]")
	case "object":
		return json.RawMessage("{}")
	case "string":
		if boundary {
			switch g.Rand.IntN(3) {
			case 0:
				return quote("")
			case 1:
				return quote(g.text(1000, 2000))
			default:
				return quote(g.text(1, 3) + "\u200f\t\"\\/" + g.text(1, 3))
			}
		}
		return quote(g.text(1, 24))
	default: // no type: any JSON value will do
		return quote(g.text(1, 8))
	}
}

// Valid returns a valid case: every required property, each optional one
// present or absent, and for a Boundary case at least one edge value or an
// unknown extra property. The members come in an order drawn at random: the
// schema names no order, and a server must not need one.
func (g *Generator) Valid(kind Kind) *Case {
	c := &Case{Kind: kind, Class: "valid, " + kind.String() + " values"}
	var edge []Property // those that may take an edge value
	for _, p := range g.Shape.Properties {
		if !p.Required && g.Rand.IntN(2) == 0 {
			continue
		}
		c.Members = append(c.Members, Member{p.Name, g.value(p, false)})
		if p.Type == "integer" || p.Type == "string" {
			edge = append(edge, p)
		}
	}
	if kind == Boundary {
		if len(edge) == 0 || g.Rand.IntN(4) == 0 {
			name := strings.NewReplacer(" ", "-", "'", "-").Replace("x-" + strings.ToLower(g.text(3, 8)))
			c.Members = append(c.Members, Member{name, quote(g.text(1, 8))})
			c.Class, c.Property = "valid, with a property the schema does not name", name
		} else {
			p := edge[g.Rand.IntN(len(edge))]
			c.Set(p.Name, g.value(p, true))
			c.Class, c.Property = fmt.Sprintf("valid, %q at an edge of its type", p.Name), p.Name
		}
	}
	g.Rand.Shuffle(len(c.Members), func(i, j int) { c.Members[i], c.Members[j] = c.Members[j], c.Members[i] })
	return c
}

// wrong values of each JSON type, for a property whose type is another.
var wrongTypes = []struct{ jsonType, class, raw string }{
	{"string", "a string", `"42"`},
	{"integer", "a number", `7`},
	{"boolean", "a boolean", `true`},
	{"null", "null", `null`},
	{"object", "an object", `{"value":1}`},
	{"array", "an array", `[1]`},
}

// Invalid returns every invalid class of the shape, once each, with the
// other properties valid: each required property dropped; each property as
// each JSON type it is not, null included; each integer with a fraction and
// one past each bound of its format; and bodies that are not objects.
func (g *Generator) Invalid() []*Case {
	var out []*Case
	valid := func() []Member {
		var ms []Member
		for _, p := range g.Shape.Properties {
			if p.Required {
				ms = append(ms, Member{p.Name, g.value(p, false)})
			}
		}
		return ms
	}
	with := func(name string, raw json.RawMessage) []Member {
		c := Case{Members: valid()}
		c.Set(name, raw)
		return c.Members
	}
	// A wrong value that a lenient reader makes an id or a name of (a
	// string's digits, an array's one member, a number, a fraction cut) is
	// written from a fresh id: a constant one, stored by a first run, would
	// be refused as a duplicate by every later run (and its rerun), which
	// would pass.
	fresh := func(raw string) string {
		if g.ID == nil {
			return raw
		}
		id := strconv.FormatInt(g.ID(), 10)
		switch {
		case raw[0] == '"':
			return `"` + id + `"`
		case raw[0] == '[':
			return "[" + id + "]"
		case strings.Contains(raw, "."):
			return id + raw[strings.IndexByte(raw, '.'):]
		}
		return id
	}
	for _, p := range g.Shape.Properties {
		if p.Required {
			ms := slices.DeleteFunc(valid(), func(m Member) bool { return m.Name == p.Name })
			out = append(out, &Case{Kind: Invalid, Class: fmt.Sprintf("%q is missing", p.Name), Property: p.Name, Members: ms})
		}
		for _, w := range wrongTypes {
			if w.jsonType == p.Type || w.jsonType == "integer" && p.Type == "number" || p.Type == "" {
				continue
			}
			raw := w.raw
			if w.jsonType == "string" || w.jsonType == "array" || w.jsonType == "integer" {
				raw = fresh(raw)
			}
			out = append(out, &Case{Kind: Invalid, Class: fmt.Sprintf("%q is %s", p.Name, w.class), Property: p.Name, Members: with(p.Name, json.RawMessage(raw))})
		}
		if p.Type == "integer" {
			frac := fmt.Sprintf("%d.5", 1+g.Rand.IntN(1000))
			if p.Name == g.IDProperty {
				frac = fresh(frac)
			}
			out = append(out, &Case{Kind: Invalid, Class: fmt.Sprintf("%q has a fraction", p.Name), Property: p.Name, Members: with(p.Name, json.RawMessage(frac))})
			// One past each bound: 2^63 and 2^63+1 fit a uint64.
			above, below := uint64(math.MaxInt64)+1, uint64(math.MaxInt64)+2
			if p.Format == "int32" {
				above, below = math.MaxInt32+1, math.MaxInt32+2
			}
			if p.Format == "int32" || p.Format == "int64" {
				out = append(out,
					&Case{Kind: Invalid, Class: fmt.Sprintf("%q is one above the %s maximum", p.Name, p.Format), Property: p.Name, PastBound: true, Members: with(p.Name, json.RawMessage(strconv.FormatUint(above, 10)))},
					&Case{Kind: Invalid, Class: fmt.Sprintf("%q is one below the %s minimum", p.Name, p.Format), Property: p.Name, PastBound: true, Members: with(p.Name, json.RawMessage("-"+strconv.FormatUint(below, 10)))})
			}
		}
	}
	whole := string(g.Valid(Typical).Body())
	for _, nb := range []struct{ class, raw string }{
		{"an array of plants", "[" + whole + "]"},
		{"a JSON string", string(quote(g.text(1, 12)))},
		{"a JSON number", strconv.Itoa(g.Rand.IntN(1000))},
		{"JSON null", "null"},
		{"JSON true", "true"},
	} {
		out = append(out, &Case{Kind: Invalid, Class: "the body is " + nb.class, Raw: []byte(nb.raw)})
	}
	return out
}
