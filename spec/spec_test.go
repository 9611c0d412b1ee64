package spec

import (
	"bytes"
	"slices"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	v := mustDefault(t)
	if got := v.ValidateDocument(); len(got) != 0 {
		t.Fatalf("document is not valid OpenAPI: %v", got)
	}
	m := ModelOf(v)
	if got, want := m.Version, "3.1.0"; got != want {
		t.Errorf("openapi = %q, want %q", got, want)
	}
	if got, want := v.Info(), (Info{Title: "Plant Store API", Version: "1.0.0", License: "MIT"}); got != want {
		t.Errorf("info = %+v, want %+v", got, want)
	}
	if got, want := m.Info.License.Identifier, "MIT"; got != want {
		t.Errorf("license identifier = %q, want %q", got, want)
	}
	if !bytes.Equal(Document(), document) {
		t.Errorf("Document() differs from the embedded document")
	}
}

func TestDocumentServerAndSecurity(t *testing.T) {
	m := ModelOf(mustDefault(t))
	if len(m.Servers) != 1 || m.Servers[0].URL != "{base_url}" {
		t.Fatalf("servers = %v, want one with url {base_url}", m.Servers)
	}
	if _, ok := m.Servers[0].Variables.Get("base_url"); !ok {
		t.Errorf("server has no base_url variable")
	}
	if len(m.Security) != 1 {
		t.Fatalf("global security has %d requirements, want 1", len(m.Security))
	}
	if _, ok := m.Security[0].Requirements.Get("bearerAuth"); !ok {
		t.Errorf("global security does not require bearerAuth")
	}
	if got := m.Components.SecuritySchemes.Len(); got != 1 {
		t.Errorf("security schemes = %d, want 1", got)
	}
	s := m.Components.SecuritySchemes.GetOrZero("bearerAuth")
	if s == nil || s.Type != "http" || s.Scheme != "bearer" {
		t.Errorf("bearerAuth = %+v, want type http, scheme bearer", s)
	}
}

func TestDocumentHoldsExactlyTheOperation(t *testing.T) {
	m := ModelOf(mustDefault(t))
	var paths []string
	for p := range m.Paths.PathItems.KeysFromOldest() {
		paths = append(paths, p)
	}
	if !slices.Equal(paths, []string{"/plants"}) {
		t.Fatalf("paths = %v, want [/plants]", paths)
	}
	item := m.Paths.PathItems.GetOrZero("/plants")
	var methods []string
	for meth := range item.GetOperations().KeysFromOldest() {
		methods = append(methods, meth)
	}
	if !slices.Equal(methods, []string{"post"}) {
		t.Fatalf("operations = %v, want [post]", methods)
	}
	op := item.Post
	if len(op.Parameters) != 0 {
		t.Errorf("operation has %d parameters, want none", len(op.Parameters))
	}
	rb := op.RequestBody
	if rb == nil || rb.Required == nil || !*rb.Required {
		t.Fatalf("request body is not required")
	}
	if got, want := rb.Description, "plant to add to the store"; got != want {
		t.Errorf("request body description = %q, want %q", got, want)
	}
	assertContent(t, "request body", rb.Content.Len(), rb.Content.GetOrZero("application/json"), "NewPlant")

	tests := []struct {
		code, description, schema string
	}{
		{"200", "plant response", "Plant"},
		{"400", "unexpected error", "Error"},
	}
	if got := op.Responses.Codes.Len(); got != len(tests) {
		t.Errorf("responses = %d, want %d", got, len(tests))
	}
	if op.Responses.Default != nil {
		t.Errorf("operation has a default response; the spec names 200 and 400 only")
	}
	for _, tt := range tests {
		r := op.Responses.Codes.GetOrZero(tt.code)
		if r == nil {
			t.Errorf("response %s missing", tt.code)
			continue
		}
		if r.Description != tt.description {
			t.Errorf("response %s description = %q, want %q", tt.code, r.Description, tt.description)
		}
		assertContent(t, "response "+tt.code, r.Content.Len(), r.Content.GetOrZero("application/json"), tt.schema)
	}
}

func assertContent(t *testing.T, what string, n int, mt *v3.MediaType, schema string) {
	t.Helper()
	if n != 1 || mt == nil || mt.Schema == nil {
		t.Errorf("%s has %d media types, want only application/json with a schema", what, n)
		return
	}
	if got, want := mt.Schema.GetReference(), "#/components/schemas/"+schema; got != want {
		t.Errorf("%s schema = %q, want %q", what, got, want)
	}
}

// field is what the spec's tables say of one field.
type field struct {
	name, typ, format string
	required          bool
}

func TestDocumentSchemas(t *testing.T) {
	m := ModelOf(mustDefault(t))
	tests := []struct {
		schema string
		fields []field
	}{
		{"Plant", []field{
			{"name", "string", "", true},
			{"tag", "string", "", false},
		}},
		{"NewPlant", []field{
			{"name", "string", "", true},
			{"tag", "string", "", false},
			{"id", "integer", "int64", true},
		}},
		{"Error", []field{
			{"error", "integer", "int32", true},
			{"message", "string", "", true},
		}},
	}
	if got := m.Components.Schemas.Len(); got != len(tests) {
		t.Errorf("schemas = %d, want %d", got, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			sp := m.Components.Schemas.GetOrZero(tt.schema)
			if sp == nil {
				t.Fatalf("schema %s missing", tt.schema)
			}
			got := flatten(sp.Schema())
			if len(got) != len(tt.fields) {
				t.Errorf("%s has %d fields (%v), want %d", tt.schema, len(got), got, len(tt.fields))
			}
			for _, want := range tt.fields {
				if f, ok := got[want.name]; !ok || f != want {
					t.Errorf("%s.%s = %+v, want %+v", tt.schema, want.name, f, want)
				}
			}
		})
	}
}

// flatten collects an object schema's fields, through allOf.
func flatten(s *base.Schema) map[string]field {
	out := map[string]field{}
	for _, sub := range s.AllOf {
		for k, v := range flatten(sub.Schema()) {
			out[k] = v
		}
	}
	if s.Properties != nil {
		for name, p := range s.Properties.FromOldest() {
			ps := p.Schema()
			f := field{name: name, format: ps.Format, required: slices.Contains(s.Required, name)}
			if len(ps.Type) == 1 {
				f.typ = ps.Type[0]
			}
			out[name] = f
		}
	}
	for _, r := range s.Required {
		if f, ok := out[r]; ok {
			f.required = true
			out[r] = f
		}
	}
	return out
}

// ValidateDocument checks the document against the OpenAPI specification's
// own schema.
func (v *Validator) ValidateDocument() []Violation {
	_, errs := lib(v).v.ValidateDocument()
	return violations(errs)
}
