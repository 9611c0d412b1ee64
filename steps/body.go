package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/internal/generate"
)

// The request body: a NewPlant built field by field, and the ways the
// features change it.

func (s *Suite) bodySteps() []stepPattern {
	return []stepPattern{
		{`^a new plant with a fresh id and the name "([^"]*)"$`, s.aNewPlantNamed},
		{`^a new plant with a fresh id, the name "([^"]*)" and the tag "([^"]*)"$`, s.aNewPlantNamedWithTag},
		{`^a plant with a fresh id and the name "([^"]*)" has been created$`, s.aPlantHasBeenCreated},
		{`^a new plant with the same id and the name "([^"]*)"$`, s.aNewPlantWithTheSameID},
		{`^the field "(\w+)" is left out$`, s.theFieldIsLeftOut},
		{`^the field "(\w+)" is the JSON value (.+)$`, s.theFieldIsTheJSONValue},
		{`^the field "id" is a fresh negative id$`, s.theIDIsAFreshNegativeID},
		{`^the field "id" is the fresh id written with a zero fraction$`, s.theIDIsWrittenWithAZeroFraction},
		{`^the field "(\w+)" is a string of (\d+) characters$`, s.theFieldIsAStringOfCharacters},
		{`^the body is cut short after its first (\d+) bytes$`, s.theBodyIsCutShort},
		{`^the body is empty$`, s.theBodyIsEmpty},
		{`^the body is wrapped in a JSON array$`, s.theBodyIsWrappedInAJSONArray},
		{`^the body is the JSON text (.+)$`, s.theBodyIsTheJSONText},
		{`^nothing else is changed$`, func() {}},
		{`^the body carries (\d+) more members of (\d+) characters each$`, s.theBodyCarriesMoreMembers},
		{`^the body carries a member nested (\d+) levels deep$`, s.theBodyCarriesANestedMember},
		{`^the request carries a header of (\d+) characters that the contract does not name$`, s.theRequestCarriesALongHeader},
	}
}

// freshID draws an id no other scenario of any run is likely to have used.
// Ids come from a stream of their own, salted afresh in every run: a rerun
// with the same seed sends the same cases and strings, but never an id its
// first run stored (which a service may refuse).
func (st *state) freshID() int64 {
	if st.ids == nil {
		return st.rng.Int64N(1<<62) + 1<<32
	}
	return st.ids.Int64N(1<<62) + 1<<32
}

func (s *Suite) aNewPlantNamed(ctx context.Context, name string) context.Context {
	st := stateOf(ctx)
	st.req = request{}
	st.req.set("id", json.RawMessage(strconv.FormatInt(st.freshID(), 10)))
	st.req.set("name", jsonString(name))
	return ctx
}

func (s *Suite) aNewPlantNamedWithTag(ctx context.Context, name, tag string) context.Context {
	ctx = s.aNewPlantNamed(ctx, name)
	stateOf(ctx).req.set("tag", jsonString(tag))
	return ctx
}

func (s *Suite) aPlantHasBeenCreated(ctx context.Context, name string) (context.Context, error) {
	ctx = s.aNewPlantNamed(ctx, name)
	stateOf(ctx).req.setup = true
	if err := s.theClientPostsIt(ctx); err != nil {
		return ctx, err
	}
	return ctx, s.statusIs(ctx, http.StatusOK, true)
}

func (s *Suite) aNewPlantWithTheSameID(ctx context.Context, name string) (context.Context, error) {
	id, _ := stateOf(ctx).req.get("id")
	ctx = s.aNewPlantNamed(ctx, name)
	st := stateOf(ctx)
	st.req.set("id", id)
	st.req.fixedID = true
	return ctx, nil
}

func (s *Suite) theFieldIsLeftOut(ctx context.Context, name string) {
	st := stateOf(ctx)
	for i, f := range st.req.fields {
		if f.Name == name {
			st.req.fields = append(st.req.fields[:i], st.req.fields[i+1:]...)
			return
		}
	}
}

func (s *Suite) theFieldIsTheJSONValue(ctx context.Context, name, value string) error {
	raw := json.RawMessage(strings.TrimSpace(value))
	if !json.Valid(raw) {
		return &HarnessError{fmt.Errorf("%w: the step gives %q, which is not a JSON value", ErrSuiteDefect, value)}
	}
	st := stateOf(ctx)
	st.req.set(name, raw)
	if name == "id" {
		st.req.fixedID = true
	}
	return nil
}

func (s *Suite) theIDIsAFreshNegativeID(ctx context.Context) {
	st := stateOf(ctx)
	st.req.set("id", json.RawMessage(strconv.FormatInt(-st.freshID(), 10)))
}

func (s *Suite) theIDIsWrittenWithAZeroFraction(ctx context.Context) {
	st := stateOf(ctx)
	st.req.set("id", json.RawMessage(strconv.FormatInt(st.freshID(), 10)+".0"))
}

func (s *Suite) theFieldIsAStringOfCharacters(ctx context.Context, name string, n int) {
	const pattern = "Monstera deliciosa "
	b := strings.Repeat(pattern, n/len(pattern)+1)[:n]
	stateOf(ctx).req.set(name, jsonString(b))
}

// theBodyCarriesMoreMembers spreads a body's size over many members the
// schema does not name (which it allows), each of n characters.
func (s *Suite) theBodyCarriesMoreMembers(ctx context.Context, count, n int) {
	r := &stateOf(ctx).req
	value := jsonString(strings.Repeat("x", n))
	for i := range count {
		r.fields = append(r.fields, generate.Member{Name: fmt.Sprintf("m%05d", i), Raw: value})
	}
}

// theBodyCarriesANestedMember adds a member whose value is n arrays, each
// in the one before: [[[...]]]. The document leaves other members free, and
// the depth of their values too.
func (s *Suite) theBodyCarriesANestedMember(ctx context.Context, n int) {
	r := &stateOf(ctx).req
	raw := strings.Repeat("[", n) + strings.Repeat("]", n)
	r.fields = append(r.fields, generate.Member{Name: "nested", Raw: json.RawMessage(raw)})
}

// theRequestCarriesALongHeader sends config.PaddingHeader with a value of n
// characters: a header as long as real requests' cookies and tokens grow.
func (s *Suite) theRequestCarriesALongHeader(ctx context.Context, n int) {
	stateOf(ctx).req.padding = n
}

func (s *Suite) theBodyIsCutShort(ctx context.Context, n int) {
	st := stateOf(ctx)
	b := st.req.body()
	st.req.raw, st.req.rawSet = b[:min(n, len(b))], true
}

func (s *Suite) theBodyIsEmpty(ctx context.Context) {
	st := stateOf(ctx)
	st.req.raw, st.req.rawSet = nil, true
}

func (s *Suite) theBodyIsWrappedInAJSONArray(ctx context.Context) {
	st := stateOf(ctx)
	st.req.raw, st.req.rawSet = append(append([]byte("["), st.req.body()...), ']'), true
}

func (s *Suite) theBodyIsTheJSONText(ctx context.Context, text string) error {
	if !json.Valid([]byte(text)) {
		return &HarnessError{fmt.Errorf("%w: the step gives %q, which is not JSON", ErrSuiteDefect, text)}
	}
	st := stateOf(ctx)
	st.req.raw, st.req.rawSet = []byte(text), true
	return nil
}
