package verdict

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is summary.schema.json, the JSON Schema (2020-12) that
// summary.json follows, whichever driver wrote it.
//
//go:embed summary.schema.json
var Schema []byte

// BaselineSchema is baseline.schema.json, the JSON Schema of a baseline
// file (--baseline, --baseline-update); BaselineSchemaID its $id.
//
//go:embed baseline.schema.json
var BaselineSchema []byte

const BaselineSchemaID = "https://plantcheck.dev/baseline.schema.json"

var compiledBaseline = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(BaselineSchemaID, BaselineSchema) })

// CheckBaseline reports whether a document is a baseline file that
// follows baseline.schema.json, and if not, why.
func CheckBaseline(doc []byte) error {
	return check(compiledBaseline, "baseline.schema.json", doc)
}

// compiled is Schema compiled, once.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(SchemaID, Schema) })

// compile compiles a schema of ours, whose $id is id.
func compile(id string, schema []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

// CheckSummary reports whether a document is a summary.json that follows
// the published schema, and if not, why.
func CheckSummary(doc []byte) error {
	return check(compiled, "summary.schema.json", doc)
}

// check validates doc against a compiled schema named file.
func check(compiled func() (*jsonschema.Schema, error), file string, doc []byte) error {
	s, err := compiled()
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}
