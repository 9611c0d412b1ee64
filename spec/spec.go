// Package spec holds the Plant Store API's OpenAPI 3.1.0 document, written
// from the specification and embedded in the binary, and the one validator
// that judges every exchange against it.
//
// The validator is libopenapi-validator with the checks it lacks added on
// top: integer formats (int32, int64) are bounded on the raw JSON text,
// because the validator sees numbers as float64 and cannot tell
// 9223372036854775807 from 9223372036854775808; a bearer credential must not
// be empty; a documented response with content must have a body.
package spec

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

//go:embed openapi.yaml
var document []byte

// Document returns a copy of the embedded OpenAPI document.
func Document() []byte { return bytes.Clone(document) }

// shared is built on first use and reused by every caller: building costs
// milliseconds (every schema is compiled), validating costs microseconds.
var shared = sync.OnceValues(func() (*Validator, error) { return New(document) })

// Default returns the validator for the embedded document, built once per
// process and safe for concurrent use.
func Default() (*Validator, error) { return shared() }

// Info describes the document as a report cites it.
type Info struct {
	Title   string
	Version string
	License string
}

// Info returns the title, version and license of the validator's document.
func (v *Validator) Info() Info {
	in := Info{}
	if info := lib(v).model.Info; info != nil {
		in.Title, in.Version = info.Title, info.Version
		if info.License != nil {
			in.License = info.License.Name
		}
	}
	return in
}

// ModelOf returns v's parsed document, for callers that walk its schemas.
// It is not a method (Validator's lib says why).
func ModelOf(v *Validator) *v3.Document { return lib(v).model }

// ErrInvalidDocument is returned by New when the document cannot be parsed
// or modelled.
var ErrInvalidDocument = errors.New("invalid OpenAPI document")

// loadModel parses an OpenAPI 3 document into libopenapi's model.
func loadModel(doc []byte) (libopenapi.Document, *v3.Document, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, nil, fmt.Errorf("%w: empty", ErrInvalidDocument)
	}
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidDocument, err)
	}
	if m == nil {
		return nil, nil, fmt.Errorf("%w: not an OpenAPI 3 document", ErrInvalidDocument)
	}
	return d, &m.Model, nil
}

// Violation is one way an exchange departs from the document.
type Violation struct {
	// Message says what is wrong, in one sentence.
	Message string `json:"message"`
	// Reason gives the detail, such as the schema failure.
	Reason string `json:"reason,omitempty"`
	// Field is the JSON path of the offending value, where there is one.
	Field string `json:"field,omitempty"`
	// SpecLine is the line of openapi.yaml the rule comes from (0 when the
	// validator does not know it).
	SpecLine int `json:"specLine,omitempty"`
	// HowToFix is the validator's advice, where it gives any.
	HowToFix string `json:"howToFix,omitempty"`
}

func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Message)
	if v.Reason != "" && v.Reason != v.Message {
		b.WriteString(": ")
		b.WriteString(v.Reason)
	}
	if v.Field != "" {
		fmt.Fprintf(&b, " (at %s)", v.Field)
	}
	if v.SpecLine > 0 {
		fmt.Fprintf(&b, " [openapi.yaml line %d]", v.SpecLine)
	}
	return b.String()
}

// Request is a request as the document judges it. Path is the operation's
// path in the document ("/plants"), without any prefix of the target's base URL.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Response is a response as the document judges it.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}
