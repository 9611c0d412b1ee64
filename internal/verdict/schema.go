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

// compiled is Schema compiled, once.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
})

// CheckSummary reports whether a document is a summary.json that follows
// the published schema, and if not, why.
func CheckSummary(doc []byte) error {
	s, err := compiled()
	if err != nil {
		return fmt.Errorf("summary.schema.json: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}
