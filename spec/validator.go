package spec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/content"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// Validator judges requests and responses against one OpenAPI document. It
// is safe for concurrent use.
type Validator struct {
	// lib is the *openapi this Validator judges with. It is an any, and no
	// method of Validator names a libopenapi type, so that a package using
	// a Validator never reads those types: each package that does compiles
	// libopenapi's generic maps again (some 11,000 functions, seconds of
	// its every build).
	lib any
	// bodies maps "METHOD /path" (requests) and "METHOD /path STATUS"
	// (responses) to what plantcheck checks on the raw JSON text.
	bodies map[string]bodyRules
	// responseHeaders: the document describes a response header, which
	// the validator then reads; the memo of responses keys on the
	// Content-Type alone, so it is off.
	responseHeaders bool
	memo            memo
}

// openapi is the libopenapi side of a Validator.
type openapi struct {
	v     validator.Validator
	model *v3.Document
	// requestSchemas maps "METHOD /path" to the schema of the operation's
	// application/json request body, compiled once by the validator's own
	// compiler, for BodyConforms.
	requestSchemas map[string]*schema_validation.CompiledValidationSchema
}

// lib is v's libopenapi side.
func lib(v *Validator) *openapi { return v.lib.(*openapi) }

// bodyRules are the checks of one JSON body that the validator cannot make.
type bodyRules struct {
	// hasContent: the document gives this body a media type, so an empty
	// body is a violation (the validator passes an empty response body).
	hasContent bool
	// integers are the top-level properties with an integer format.
	integers []integerField
}

// integerField is a property of type integer with a bounded format.
type integerField struct {
	name   string
	format string
	// lo and hi bound the format's values (int32, int64).
	lo, hi int64
	line   int
}

// New builds a validator for an OpenAPI 3 document. Most callers want
// Default; New serves documents other than the embedded one.
func New(doc []byte) (*Validator, error) {
	d, model, err := loadModel(doc)
	if err != nil {
		return nil, err
	}
	opts := []config.Option{config.WithAuthenticationFunc(checkAuthentication)}
	v, errs := validator.NewValidator(d, opts...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDocument, errors.Join(errs...))
	}
	out := &Validator{lib: &openapi{v: v, model: model, requestSchemas: map[string]*schema_validation.CompiledValidationSchema{}}, bodies: map[string]bodyRules{}}
	if err := readOperations(out, config.NewValidationOptions(opts...)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	return out, nil
}

// readOperations reads, in one walk of the document's operations, what the
// validator alone does not do: for each JSON request body and response the
// checks to make on the raw text, each application/json request body's
// schema compiled as the validator compiles it, and whether any response
// describes a header.
func readOperations(v *Validator, opts *config.ValidationOptions) error {
	m := lib(v).model
	if m == nil || m.Paths == nil || m.Paths.PathItems == nil {
		return nil
	}
	version := helpers.VersionToFloat(m.Version)
	for path, item := range m.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			key := strings.ToUpper(method) + " " + path
			if rb := op.RequestBody; rb != nil && rb.Content != nil {
				v.bodies[key] = jsonBodyRules(rb.Content)
				if mt := rb.Content.GetOrZero("application/json"); mt != nil && mt.Schema != nil {
					c, err := schema_validation.CompileSchemaForValidation(mt.Schema.Schema(), schema_validation.SchemaValidationPurposeRequestBody, opts, version)
					if err != nil {
						return fmt.Errorf("compile the request schema of %s: %w", key, err)
					}
					lib(v).requestSchemas[key] = c
				}
			}
			if op.Responses == nil {
				continue
			}
			if d := op.Responses.Default; d != nil && orderedmap.Len(d.Headers) > 0 {
				v.responseHeaders = true
			}
			for code, resp := range op.Responses.Codes.FromOldest() {
				v.bodies[key+" "+code] = jsonBodyRules(resp.Content)
				v.responseHeaders = v.responseHeaders || orderedmap.Len(resp.Headers) > 0
			}
		}
	}
	return nil
}

// CheckRequest reports how a request departs from the document.
func (v *Validator) CheckRequest(r Request) []Violation {
	k := key("request", r.Method, r.Path, r.Header, r.Body)
	if got, ok := v.memo.get(k); ok {
		return got.vs
	}
	req := r.httpRequest()
	_, errs := lib(v).v.ValidateHttpRequestSync(req)
	out := violations(errs)
	out = append(out, v.checkBody(r.Method+" "+r.Path, &decoded{body: r.Body})...)
	v.memo.put(k, verdict{ok: len(out) == 0, vs: out})
	return out
}

// BodyConforms says whether a JSON request body keeps the request schema of
// the operation "METHOD /path", with the same verdict as CheckRequest gives
// a request that carries it with valid credentials and the media type
// application/json: the same decoding, the same compiled schema, the same
// checks on the raw text. It builds no messages, which makes it several
// times cheaper on an invalid body; CheckRequest says what is wrong.
func (v *Validator) BodyConforms(method, path string, body []byte) bool {
	ok, _ := v.ReadBody(method, path, body)
	return ok
}

// ReadBody is BodyConforms, with the body as the check decoded it when it
// conforms (the validator's value: numbers are float64), so that a caller
// that reads the body again reads it once. The value is shared: read it,
// never change it. It is nil when the document has no schema for the body,
// or when the verdict was kept from an earlier check (the memo) and the
// body is longer than keptValueBytes: the caller then decodes it itself.
func (v *Validator) ReadBody(method, path string, body []byte) (bool, any) {
	k := key("body", method, path, body)
	if got, ok := v.memo.get(k); ok {
		return got.ok, got.value
	}
	// The body is decoded once, for the checks on its raw text and for
	// the schema.
	d, op := &decoded{body: body}, method+" "+path
	ok := len(v.checkBody(op, d)) == 0
	var value any
	if c := lib(v).requestSchemas[op]; ok && c != nil && c.CompiledSchema != nil {
		var err error
		if value, err = d.get(); err == nil {
			// It turns each number's text into the float64 the
			// validator's own decoding gives, and fails where that
			// decoding fails (a number past float64).
			value, err = content.Canonicalize(value)
		}
		if ok = err == nil && c.CompiledSchema.Validate(value) == nil; !ok {
			value = nil
		}
	}
	kept := verdict{ok: ok}
	if len(body) <= keptValueBytes {
		kept.value = value
	}
	v.memo.put(k, kept)
	return ok, value
}

// keptValueBytes bounds the bodies whose decoded value the memo keeps: an
// ordinary request's, which a judge reads again, not a size probe's.
const keptValueBytes = 1 << 10

// decoded is a JSON body, decoded on first need and once, as the
// validator's decoder reads it (content.JSONDecoder: one value, nothing but
// white space after it, an empty body nil), but with each number kept as
// its text (json.Number), which the integer formats are bounded on.
type decoded struct {
	body  []byte
	done  bool
	value any // nil when err is not
	err   error
}

func (d *decoded) get() (any, error) {
	if d.done {
		return d.value, d.err
	}
	d.done = true
	dec := json.NewDecoder(bytes.NewReader(d.body))
	dec.UseNumber()
	switch err := dec.Decode(&d.value); {
	case errors.Is(err, io.EOF):
	case err != nil:
		d.value, d.err = nil, err
	default:
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			d.value, d.err = nil, errors.New("JSON body contains multiple values")
		}
	}
	return d.value, d.err
}

// CheckResponse reports how a response to a request departs from the
// document: an undocumented status, a wrong media type, a body that does not
// match the status's schema.
func (v *Validator) CheckResponse(r Request, resp Response) []Violation {
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	// The validator reads the method, the path, the status, the first
	// Content-Type and the body (and a header the document describes:
	// then nothing is kept); the checks on the body read the first three
	// and the body.
	status := strconv.Itoa(resp.Status)
	k := key("response", r.Method, r.Path, status, resp.Header.Get("Content-Type"), resp.Body)
	doc, kept := v.memo.get(k)
	if !kept || v.responseHeaders {
		req := r.httpRequest()
		req.Body = http.NoBody
		hr := &http.Response{
			StatusCode:    resp.Status,
			Header:        resp.Header,
			Body:          io.NopCloser(bytes.NewReader(resp.Body)),
			ContentLength: int64(len(resp.Body)),
			Request:       req,
		}
		_, errs := lib(v).v.ValidateHttpResponse(req, hr)
		doc.vs = violations(errs)
		doc.body = v.checkBody(r.Method+" "+r.Path+" "+status, &decoded{body: resp.Body})
		if !v.responseHeaders {
			v.memo.put(k, doc)
		}
	}
	out := append(doc.vs, repeatedSingletons(resp.Header)...)
	return append(out, doc.body...)
}

// singletons are the response fields the document's answer depends on
// that HTTP allows once (RFC 9110, section 5.3: a sender MUST NOT repeat a
// field that is not a list): its media type, and its framing.
var singletons = []string{"Content-Type", "Content-Length"}

// repeatedSingletons finds the singleton fields a response carries more
// than once, which the validator cannot see: it reads Header.Get, the
// first field alone, so an application/json answer that a middleware gave
// a second Content-Type passes it.
func repeatedSingletons(h http.Header) []Violation {
	var out []Violation
	for _, name := range singletons {
		if n := len(h.Values(name)); n > 1 {
			out = append(out, Violation{
				Message:  fmt.Sprintf("The response carries %d %s fields", n, name),
				Reason:   name + " is a singleton field (RFC 9110, section 5.3): a response with more than one, even of one value, is not the documented response",
				HowToFix: "send " + name + " once: look for a middleware, filter or proxy that adds its own after the handler's",
			})
		}
	}
	return out
}

func (r Request) httpRequest() *http.Request {
	h := r.Header
	if h == nil {
		h = http.Header{}
	}
	return &http.Request{
		Method:        r.Method,
		URL:           &url.URL{Scheme: "http", Host: "plantcheck.invalid", Path: r.Path},
		Host:          "plantcheck.invalid",
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(r.Body)),
		ContentLength: int64(len(r.Body)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
	}
}

// The ways a request breaks the document's bearer scheme, for errors.Is.
var (
	ErrNoAuthorization = errors.New("the request has no Authorization header")
	ErrNotBearer       = errors.New("the Authorization header does not use the Bearer scheme")
	ErrEmptyBearer     = errors.New("the Authorization header carries the Bearer scheme with an empty credential")
)

// CheckBearer reads an Authorization value as the document's bearer scheme
// does: present, the scheme Bearer in any letter case, a credential that is
// not blank. Whether the credential is one the service issued is for the
// service to say. It is the one bearer check: the validator's and the
// request classifier's (package judge).
func CheckBearer(authorization string) error {
	if authorization == "" {
		return ErrNoAuthorization
	}
	scheme, credential, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ErrNotBearer
	}
	if strings.TrimSpace(credential) == "" {
		return ErrEmptyBearer
	}
	return nil
}

// checkAuthentication replaces the validator's bearer check, which looks at
// the prefix only: "Bearer" with no credential must fail too.
func checkAuthentication(_ context.Context, in *config.AuthenticationInput) error {
	s := in.SecurityScheme
	if s == nil || !strings.EqualFold(s.Type, "http") || !strings.EqualFold(s.Scheme, "bearer") {
		return nil
	}
	return CheckBearer(in.Request.Header.Get("Authorization"))
}

func violations(errs []*verrors.ValidationError) []Violation {
	var out []Violation
	for _, e := range errs {
		if e == nil {
			continue
		}
		line := e.SpecLine
		if line <= 1 {
			// Request errors carry line 1 whatever their origin.
			line = 0
		}
		if len(e.SchemaValidationErrors) == 0 {
			out = append(out, Violation{Message: e.Message, Reason: e.Reason, SpecLine: line, HowToFix: e.HowToFix})
			continue
		}
		for _, f := range e.SchemaValidationErrors {
			l := line
			if f.Line > 1 && l == 0 {
				l = f.Line
			}
			out = append(out, Violation{Message: e.Message, Reason: f.Reason, Field: f.FieldPath, SpecLine: l, HowToFix: e.HowToFix})
		}
	}
	return out
}

func jsonBodyRules(content *orderedmap.Map[string, *v3.MediaType]) bodyRules {
	if orderedmap.Len(content) == 0 {
		return bodyRules{}
	}
	r := bodyRules{hasContent: true}
	if mt := content.GetOrZero("application/json"); mt != nil && mt.Schema != nil {
		r.integers = integerFields(mt.Schema, 0)
	}
	return r
}

// integerFields finds the top-level properties of type integer with format
// int32 or int64, looking through allOf.
func integerFields(sp *base.SchemaProxy, depth int) []integerField {
	if sp == nil || depth > 8 {
		return nil
	}
	s := sp.Schema()
	if s == nil {
		return nil
	}
	var out []integerField
	for _, sub := range s.AllOf {
		out = append(out, integerFields(sub, depth+1)...)
	}
	if s.Properties == nil {
		return out
	}
	for name, prop := range s.Properties.FromOldest() {
		ps := prop.Schema()
		if ps == nil || !slices.Contains(ps.Type, "integer") {
			continue
		}
		bounds, ok := integerFormats[ps.Format]
		if !ok {
			continue
		}
		f := integerField{name: name, format: ps.Format, lo: bounds[0], hi: bounds[1]}
		if n := prop.GetValueNode(); n != nil {
			f.line = n.Line
		}
		out = append(out, f)
	}
	return out
}

var integerFormats = map[string][2]int64{"int32": {math.MinInt32, math.MaxInt32}, "int64": {math.MinInt64, math.MaxInt64}}

// checkBody makes the checks the validator cannot: an empty body where the
// document gives content, a body that is not UTF-8 (the validator decodes
// invalid bytes as U+FFFD and lets them pass; RFC 8259, 8.1, requires JSON
// exchanged between systems to be UTF-8), and integer formats bounded on the
// raw JSON text.
func (v *Validator) checkBody(key string, d *decoded) []Violation {
	body := d.body
	rules, ok := v.bodies[key]
	if !ok || !rules.hasContent {
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return []Violation{{Message: "The body is empty", Reason: "the document gives this message a JSON body"}}
	}
	if !utf8.Valid(body) {
		return []Violation{{Message: "The body is not valid UTF-8", Reason: "JSON exchanged between systems must be encoded in UTF-8 (RFC 8259, 8.1)",
			HowToFix: "encode the JSON text in UTF-8"}}
	}
	if len(rules.integers) == 0 {
		return nil
	}
	value, _ := d.get()
	obj, ok := value.(map[string]any)
	if !ok {
		return nil // not a JSON object: the validator says so
	}
	var out []Violation
	for _, f := range rules.integers {
		n, ok := obj[f.name].(json.Number)
		if !ok {
			continue // not a number: a wrong type is the validator's to report
		}
		if msg := f.check([]byte(n)); msg != "" {
			out = append(out, Violation{
				Message:  fmt.Sprintf("Property %q is not an %s integer", f.name, f.format),
				Reason:   msg,
				Field:    "$." + f.name,
				SpecLine: f.line,
				HowToFix: fmt.Sprintf("send an integer between %d and %d", f.lo, f.hi),
			})
		}
	}
	return out
}

// check judges one raw JSON value; it returns "" when the value is within
// bounds or is not a number (a wrong type is the validator's to report).
func (f integerField) check(raw []byte) string {
	lit := string(raw)
	if len(lit) == 0 || !(lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9') {
		return ""
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		if n < f.lo || n > f.hi {
			return fmt.Sprintf("%s is outside the %s range", lit, f.format)
		}
		return ""
	}
	r, ok := ExactNumber(lit)
	if !ok {
		return ""
	}
	if r == nil {
		return fmt.Sprintf("%s is far outside the %s range", lit, f.format)
	}
	if !r.IsInt() {
		// A fraction the validator sees as an integer once rounded to
		// float64 (9007199254740993.5) is reported here; other fractions
		// the validator reports itself.
		if fl, err := strconv.ParseFloat(lit, 64); err == nil && fl == float64(int64(fl)) {
			return fmt.Sprintf("%s has a fraction", lit)
		}
		return ""
	}
	if r.Cmp(big.NewRat(f.lo, 1)) < 0 || r.Cmp(big.NewRat(f.hi, 1)) > 0 {
		return fmt.Sprintf("%s is outside the %s range", lit, f.format)
	}
	return ""
}

// ExactNumber reads a JSON number exactly. It returns (nil, true) for a
// number whose exponent is so large that reading it exactly would cost too
// much: such a number is far outside any integer format; a tiny non-zero
// one reads as 1/2 (a fraction). (nil, false) means the text is not a
// number. It is the one exact reader: the validator's integer bounds and
// the request classifier (package judge) both use it.
func ExactNumber(lit string) (*big.Rat, bool) {
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp, err := strconv.Atoi(lit[i+1:])
		if err != nil || exp > 400 || exp < -400 {
			mantissa, ok := new(big.Rat).SetString(lit[:i])
			if !ok {
				return nil, false
			}
			if mantissa.Sign() == 0 {
				return mantissa, true
			}
			if exp < 0 || err != nil && strings.HasPrefix(lit[i+1:], "-") {
				// A tiny non-zero number: a fraction.
				return big.NewRat(1, 2), true
			}
			return nil, true
		}
	}
	if len(lit) > 1000 {
		return nil, true
	}
	r, ok := new(big.Rat).SetString(lit)
	return r, ok
}
