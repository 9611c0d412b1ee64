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

// freshID draws an id no other scenario of any run is likely to have used.
// Ids come from a stream of their own, salted afresh in every run: a rerun
// with the same seed sends the same cases and strings, but never an id its
// first run stored (which a service may refuse).
func (st *state) freshID() int64 {
	st.idsMu.Lock()
	defer st.idsMu.Unlock()
	return st.ids.Int64N(1<<62) + 1<<32
}

func (s *Suite) aNewPlantNamed(ctx context.Context, name string) {
	st := stateOf(ctx)
	st.req = request{}
	st.req.Set("id", json.RawMessage(strconv.FormatInt(st.freshID(), 10)))
	st.req.Set("name", jsonString(name))
}

func (s *Suite) setID(ctx context.Context, pre, post string) {
	st := stateOf(ctx)
	st.req.Set("id", json.RawMessage(pre+strconv.FormatInt(st.freshID(), 10)+post))
}

// created posts a plant the scenario needs before the request it is about
// (setup), under a fresh Idempotency-Key when idempotent.
func (s *Suite) created(ctx context.Context, name string, idempotent bool) error {
	s.aNewPlantNamed(ctx, name)
	st := stateOf(ctx)
	if idempotent {
		// A Structured Fields string, as the IETF's Idempotency-Key draft
		// has it, drawn afresh in every run.
		st.req.setHeader("Idempotency-Key", `"plantcheck-`+strconv.FormatInt(st.freshID(), 36)+`"`)
	}
	st.req.setup = true
	if err := s.theClientPostsIt(ctx); err != nil {
		return err
	}
	return s.statusIs(ctx, http.StatusOK, true)
}

func (s *Suite) aNewPlantWithTheSameID(ctx context.Context, name string) {
	st := stateOf(ctx)
	id, _ := st.req.Get("id")
	s.aNewPlantNamed(ctx, name)
	st.req.Set("id", id)
	st.req.fixedID = true
}

func (s *Suite) theFieldIsTheJSONValue(ctx context.Context, name, value string) error {
	raw := json.RawMessage(strings.TrimSpace(value))
	if !json.Valid(raw) {
		return &HarnessError{fmt.Errorf("%w: the step gives %q, which is not a JSON value", ErrSuiteDefect, value)}
	}
	st := stateOf(ctx)
	st.req.Set(name, raw)
	st.req.fixedID = st.req.fixedID || name == "id"
	return nil
}

// theBodyCarriesMoreMembers spreads a body's size over many members the
// schema does not name (which it allows), each of n characters.
func (s *Suite) theBodyCarriesMoreMembers(ctx context.Context, count, n int) {
	r := &stateOf(ctx).req
	value := jsonString(strings.Repeat("x", n))
	for i := range count {
		r.Members = append(r.Members, generate.Member{Name: fmt.Sprintf("m%05d", i), Raw: value})
	}
}

func (s *Suite) theBodyIsTheJSONText(ctx context.Context, text string) error {
	if !json.Valid([]byte(text)) {
		return &HarnessError{fmt.Errorf("%w: the step gives %q, which is not JSON", ErrSuiteDefect, text)}
	}
	stateOf(ctx).req.setRaw([]byte(text))
	return nil
}
