package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/plantcheck/plantcheck/internal/generate"
)

// jsonString writes s as a JSON string as most clients do: <, > and & as
// they are (encoding/json would escape them, JavaScript does not).
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(s) + 3) // the quotes and the newline: a string without escapes in one allocation
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// aStringFromEachCategory makes a case of each string a run sends of every
// category of the hostile strings (Category.Sent), as the name or the tag
// of a valid plant: a refusal fails the scenario's SHOULD, a wrong echo
// CREATE-NAME's or CREATE-TAG's MUST.
func (s *Suite) aStringFromEachCategory(ctx context.Context, field string) {
	st := stateOf(ctx)
	for _, cat := range generate.Catalog() {
		for i, str := range cat.Sent(st.rng.IntN, s.cfg.AllStrings) {
			how := "drawn from"
			if i < len(cat.Fixed) {
				how = "fixed for"
			}
			c := &generate.Case{Kind: generate.Boundary, Property: field,
				Class: fmt.Sprintf("a %s %s the catalog's category %q (%s: %s)", field, how, cat.Name, cat.Source, cat.Why)}
			c.Set("id", json.RawMessage(strconv.FormatInt(st.freshID(), 10)))
			if field == "name" {
				c.Set("name", jsonString(str))
			} else {
				// A name of its own for each, drawn like the id, so that a
				// target that refuses a stored name judges every tag.
				c.Set("name", jsonString("Catalog tag test "+strconv.FormatInt(st.freshID(), 36)))
				c.Set("tag", jsonString(str))
			}
			st.cases = append(st.cases, c)
		}
	}
}
