package verdict

import _ "embed"

// Schema is summary.schema.json, the JSON Schema (2020-12) that
// summary.json follows, whichever driver wrote it.
//
//go:embed summary.schema.json
var Schema []byte
