package verdict

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON Schemas (2020-12) of the documents plantcheck writes and reads:
// summary.json (whichever driver wrote it), a baseline file (--baseline,
// --baseline-update) and the conformance statement's predicate.
//
//go:embed summary.schema.json baseline.schema.json conformance.schema.json
var schemas embed.FS

// BaselineSchemaID is baseline.schema.json's $id, which a baseline file names.
const BaselineSchemaID = "https://plantcheck.dev/baseline.schema.json"

var (
	// CheckSummary reports whether a document is a summary.json that
	// follows the published schema, and if not, why.
	CheckSummary = checker("summary.schema.json", SchemaID)
	// CheckBaseline does so for a baseline file, CheckPredicate for a
	// statement's predicate.
	CheckBaseline  = checker("baseline.schema.json", BaselineSchemaID)
	CheckPredicate = checker("conformance.schema.json", "https://plantcheck.dev/conformance.schema.json")
)

// checker validates documents against the schema of ours in file, whose
// $id is id, compiled once.
func checker(file, id string) func(doc []byte) error {
	compiled := sync.OnceValues(func() (*jsonschema.Schema, error) {
		b, _ := schemas.ReadFile(file)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
		return c.Compile(id)
	})
	return func(doc []byte) error {
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
}
