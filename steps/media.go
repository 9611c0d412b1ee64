package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Media types: the one a request declares, and the one an answer carries.

func (s *Suite) mediaSteps() []stepPattern {
	return []stepPattern{
		{`^the request declares the media type "(.*)"$`, s.theRequestDeclaresTheMediaType},
		{`^the request declares no media type$`, s.theRequestDeclaresNoMediaType},
		{`^the request accepts "(.*)"$`, s.theRequestAccepts},
		{`^the plant is sent as (a URL-encoded form|a multipart form)$`, s.thePlantIsSentAsAForm},
		{`^the response media type is application/json$`, s.theResponseMediaTypeIsJSON},
	}
}

func (s *Suite) theRequestDeclaresTheMediaType(ctx context.Context, mt string) {
	st := stateOf(ctx)
	st.req.contentType, st.req.noCT = mt, false
}

// theRequestAccepts sends accept as the request's Accept header.
func (s *Suite) theRequestAccepts(ctx context.Context, accept string) {
	stateOf(ctx).req.accept = &accept
}

func (s *Suite) theRequestDeclaresNoMediaType(ctx context.Context) {
	stateOf(ctx).req.noCT = true
}

// formBoundary separates the parts of a multipart form: fixed, so that a
// seed sends the same bytes.
const formBoundary = "plantcheck-form-boundary"

// thePlantIsSentAsAForm sends the plant's fields as an HTML form, in the
// form's media type: what a service that reads forms as well as JSON (a
// framework's form parser beside its JSON one) takes for a plant.
func (s *Suite) thePlantIsSentAsAForm(ctx context.Context, kind string) error {
	st := stateOf(ctx)
	values := url.Values{}
	var names []string
	for _, m := range st.req.fields {
		v := string(m.Raw)
		var str string
		if json.Unmarshal(m.Raw, &str) == nil {
			v = str
		}
		values.Set(m.Name, v)
		names = append(names, m.Name)
	}
	if kind == "a URL-encoded form" {
		st.req.setRaw([]byte(values.Encode()))
		st.req.contentType = "application/x-www-form-urlencoded"
		return nil
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(formBoundary); err != nil {
		return &HarnessError{fmt.Errorf("%w: %v", ErrSuiteDefect, err)}
	}
	for _, n := range names {
		w.WriteField(n, values.Get(n)) // a bytes.Buffer takes every write
	}
	w.Close()
	st.req.setRaw(b.Bytes())
	st.req.contentType = w.FormDataContentType()
	return nil
}

// theResponseMediaTypeIsJSON reads the answer's media type, RESPONSE-MEDIA's
// whichever scenario asks; the one judge judges it on every answer but a
// refusal of a valid request for a long header, which it judges at
// HEADER-SIZE's level.
func (s *Suite) theResponseMediaTypeIsJSON(ctx context.Context) error {
	return s.ask(ctx, rules.ResponseMedia, rules.HeaderSize)
}
