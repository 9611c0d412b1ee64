package spec

import (
	"net/http"
	"testing"
)

// BenchmarkCheckResponse measures validating one response against the
// document, with plantcheck's own checks on top: a valid Plant record, and
// invalid ones (a wrong type, and an Error code beyond int32).
func BenchmarkCheckResponse(b *testing.B) {
	v, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Method: http.MethodPost, Path: "/plants",
		Header: http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}},
		Body:   []byte(`{"id":1,"name":"Fern","tag":"green"}`)}
	ct := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name   string
		resp   Response
		wantOK bool
	}{
		{"valid", Response{Status: 200, Header: ct, Body: []byte(`{"name":"Fern","tag":"green"}`)}, true},
		{"invalid-type", Response{Status: 200, Header: ct, Body: []byte(`{"name":7}`)}, false},
		{"invalid-int32", Response{Status: 400, Header: ct, Body: []byte(`{"error":2147483648,"message":"no"}`)}, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok := len(v.CheckResponse(req, c.resp)) == 0; ok != c.wantOK {
					b.Fatalf("valid = %v, want %v", ok, c.wantOK)
				}
			}
		})
	}
}

// BenchmarkCheckRequest measures the suite's check of its own requests:
// the whole check, which says what is wrong, and BodyConforms, the cheap
// verdict on a body that the suite takes before sending each one.
func BenchmarkCheckRequest(b *testing.B) {
	v, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	h := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	checks := []struct {
		name     string
		conforms func(body []byte) bool
	}{
		{"check", func(body []byte) bool {
			return len(v.CheckRequest(Request{Method: http.MethodPost, Path: "/plants", Header: h, Body: body})) == 0
		}},
		{"conforms", func(body []byte) bool { return v.BodyConforms(http.MethodPost, "/plants", body) }},
	}
	for _, check := range checks {
		for _, c := range []struct {
			name, body string
			wantOK     bool
		}{
			{"valid", `{"id":1,"name":"Fern","tag":"green"}`, true},
			{"invalid", `{"id":"1","name":"Fern"}`, false},
		} {
			b.Run(check.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				body := []byte(c.body)
				for b.Loop() {
					if ok := check.conforms(body); ok != c.wantOK {
						b.Fatalf("valid = %v", ok)
					}
				}
			})
		}
	}
}

// BenchmarkBuildValidator measures building the validator from the
// document, which a process does once.
func BenchmarkBuildValidator(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Document()); err != nil {
			b.Fatal(err)
		}
	}
}
