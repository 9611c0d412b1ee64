package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/url"
)

// Media types: the one a request declares, and the one an answer carries.

// formBoundary separates the parts of a multipart form: fixed, so that a
// seed sends the same bytes.
const formBoundary = "plantcheck-form-boundary"

// thePlantIsSentAsAForm sends the plant's fields as an HTML form, in the
// form's media type: what a service that reads forms as well as JSON (a
// framework's form parser beside its JSON one) takes for a plant.
func (s *Suite) thePlantIsSentAsAForm(ctx context.Context, kind string) {
	r := &stateOf(ctx).req
	values := url.Values{}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.SetBoundary(formBoundary) // a valid boundary: no error
	for _, m := range r.Members {
		v := string(m.Raw)
		var str string
		if json.Unmarshal(m.Raw, &str) == nil {
			v = str
		}
		values.Set(m.Name, v)
		w.WriteField(m.Name, v) // a bytes.Buffer takes every write
	}
	w.Close()
	r.setRaw(b.Bytes())
	r.setHeader("Content-Type", w.FormDataContentType())
	if kind == "a URL-encoded form" {
		r.setRaw([]byte(values.Encode()))
		r.setHeader("Content-Type", "application/x-www-form-urlencoded")
	}
}
