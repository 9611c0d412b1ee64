package spec

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func mustDefault(t testing.TB) *Validator {
	t.Helper()
	v, err := Default()
	if err != nil {
		t.Fatalf("Default(): %v", err)
	}
	return v
}

func jsonHeader(auth string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	return h
}

func TestCheckRequest(t *testing.T) {
	v := mustDefault(t)
	const bearer = "Bearer s3cret"
	tests := []struct {
		name   string
		header http.Header
		body   string
		valid  bool
	}{
		{"valid without tag", jsonHeader(bearer), `{"id":1,"name":"Fern"}`, true},
		{"valid with tag", jsonHeader(bearer), `{"id":1,"name":"Fern","tag":"green"}`, true},
		{"valid with charset", http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, true},
		// What HTTP calls application/json (RFC 9110, sections 8.3.1 and
		// 8.3.2), which the suite sends as valid requests.
		{"type in capitals", http.Header{"Content-Type": {"Application/JSON"}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, true},
		{"quoted charset", http.Header{"Content-Type": {`application/json;charset="utf-8"`}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, true},
		{"space before the parameter", http.Header{"Content-Type": {"application/json ; charset=utf-8"}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, true},
		{"parameter in capitals", http.Header{"Content-Type": {"application/json;CHARSET=UTF-8"}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, true},
		{"bearer in lower case", jsonHeader("bearer s3cret"), `{"id":1,"name":"Fern"}`, true},
		{"int64 maximum", jsonHeader(bearer), `{"id":9223372036854775807,"name":"Fern"}`, true},
		{"int64 minimum", jsonHeader(bearer), `{"id":-9223372036854775808,"name":"Fern"}`, true},
		{"extra property", jsonHeader(bearer), `{"id":1,"name":"Fern","colour":"red"}`, true},
		{"1.0 is an integer in JSON Schema 2020-12", jsonHeader(bearer), `{"id":1.0,"name":"Fern"}`, true},
		{"id missing", jsonHeader(bearer), `{"name":"Fern"}`, false},
		{"id a string", jsonHeader(bearer), `{"id":"1","name":"Fern"}`, false},
		{"id null", jsonHeader(bearer), `{"id":null,"name":"Fern"}`, false},
		{"id with a fraction", jsonHeader(bearer), `{"id":1.5,"name":"Fern"}`, false},
		{"id one past int64 maximum", jsonHeader(bearer), `{"id":9223372036854775808,"name":"Fern"}`, false},
		{"id one past int64 minimum", jsonHeader(bearer), `{"id":-9223372036854775809,"name":"Fern"}`, false},
		{"id with a huge exponent", jsonHeader(bearer), `{"id":1e999999999,"name":"Fern"}`, false},
		{"name missing", jsonHeader(bearer), `{"id":1}`, false},
		{"name a number", jsonHeader(bearer), `{"id":1,"name":7}`, false},
		{"name null", jsonHeader(bearer), `{"id":1,"name":null}`, false},
		{"tag a number", jsonHeader(bearer), `{"id":1,"name":"Fern","tag":7}`, false},
		{"tag null", jsonHeader(bearer), `{"id":1,"name":"Fern","tag":null}`, false},
		{"malformed JSON", jsonHeader(bearer), `{"id":1,"name":`, false},
		{"empty body", jsonHeader(bearer), ``, false},
		{"name not UTF-8", jsonHeader(bearer), "{\"id\":1,\"name\":\"F\xffern\"}", false},
		{"name in UTF-8", jsonHeader(bearer), `{"id":1,"name":"Fëŕn 🌿"}`, true},
		{"array body", jsonHeader(bearer), `[{"id":1,"name":"Fern"}]`, false},
		{"text/plain", http.Header{"Content-Type": {"text/plain"}, "Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, false},
		{"no media type", http.Header{"Authorization": {bearer}}, `{"id":1,"name":"Fern"}`, false},
		{"no Authorization", jsonHeader(""), `{"id":1,"name":"Fern"}`, false},
		{"Basic scheme", jsonHeader("Basic s3cret"), `{"id":1,"name":"Fern"}`, false},
		{"empty bearer credential", jsonHeader("Bearer "), `{"id":1,"name":"Fern"}`, false},
		{"bare Bearer", jsonHeader("Bearer"), `{"id":1,"name":"Fern"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v.CheckRequest(Request{Method: "POST", Path: "/plants", Header: tt.header, Body: []byte(tt.body)})
			if valid := len(got) == 0; valid != tt.valid {
				t.Errorf("valid = %v, want %v; violations: %v", valid, tt.valid, got)
			}
			for _, vi := range got {
				if strings.Contains(vi.String(), "s3cret") {
					t.Errorf("violation prints the credential: %s", vi)
				}
			}
		})
	}
}

func TestCheckResponse(t *testing.T) {
	v := mustDefault(t)
	req := Request{Method: "POST", Path: "/plants", Header: jsonHeader("Bearer x"), Body: []byte(`{"id":1,"name":"Fern"}`)}
	ct := func(v string) http.Header { return http.Header{"Content-Type": {v}} }
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		valid     bool
		wantField string // a violation names this field
	}{
		{"200 Plant", 200, ct("application/json"), `{"name":"Fern"}`, true, ""},
		{"200 Plant with tag and charset", 200, ct("application/json; charset=utf-8"), `{"name":"Fern","tag":"green"}`, true, ""},
		{"200 Plant with extra id", 200, ct("application/json"), `{"id":1,"name":"Fern"}`, true, ""},
		{"200 without name", 200, ct("application/json"), `{"tag":"green"}`, false, ""},
		{"200 name a number", 200, ct("application/json"), `{"name":7}`, false, ""},
		{"200 tag null", 200, ct("application/json"), `{"name":"Fern","tag":null}`, false, ""},
		{"200 empty body", 200, ct("application/json"), ``, false, ""},
		{"200 name not UTF-8", 200, ct("application/json"), "{\"name\":\"F\xc3ern\"}", false, ""},
		{"200 text/plain", 200, ct("text/plain"), `{"name":"Fern"}`, false, ""},
		{"200 no media type", 200, http.Header{}, `{"name":"Fern"}`, false, ""},
		{"200 malformed JSON", 200, ct("application/json"), `{"name":`, false, ""},
		{"201 undocumented", 201, ct("application/json"), `{"name":"Fern"}`, false, ""},
		{"500 undocumented", 500, ct("application/json"), `{"error":1,"message":"boom"}`, false, ""},
		{"302 undocumented", 302, http.Header{"Location": {"/elsewhere"}}, ``, false, ""},
		{"400 Error", 400, ct("application/json"), `{"error":400,"message":"bad"}`, true, ""},
		{"400 int32 maximum", 400, ct("application/json"), `{"error":2147483647,"message":"bad"}`, true, ""},
		{"400 int32 minimum", 400, ct("application/json"), `{"error":-2147483648,"message":"bad"}`, true, ""},
		{"400 without message", 400, ct("application/json"), `{"error":400}`, false, ""},
		{"400 without error", 400, ct("application/json"), `{"message":"bad"}`, false, ""},
		{"400 error a string", 400, ct("application/json"), `{"error":"400","message":"bad"}`, false, ""},
		{"400 error one past int32 maximum", 400, ct("application/json"), `{"error":2147483648,"message":"bad"}`, false, "$.error"},
		{"400 error one past int32 minimum", 400, ct("application/json"), `{"error":-2147483649,"message":"bad"}`, false, "$.error"},
		{"400 error past int64", 400, ct("application/json"), `{"error":99999999999999999999,"message":"bad"}`, false, "$.error"},
		{"400 error with a fraction", 400, ct("application/json"), `{"error":1.5,"message":"bad"}`, false, ""},
		{"400 empty body", 400, ct("application/json"), ``, false, ""},
		{"400 a Plant", 400, ct("application/json"), `{"name":"Fern"}`, false, ""},
		{"200 Application/JSON", 200, ct("Application/JSON"), `{"name":"Fern"}`, true, ""},
		{"200 quoted charset", 200, ct(`application/json; charset="utf-8"`), `{"name":"Fern"}`, true, ""},
		// Singleton fields repeated, which the validator, reading the
		// first field alone, lets through.
		{"200 a second Content-Type", 200, http.Header{"Content-Type": {"application/json", "text/plain"}}, `{"name":"Fern"}`, false, ""},
		{"200 Content-Type twice", 200, http.Header{"Content-Type": {"application/json", "application/json"}}, `{"name":"Fern"}`, false, ""},
		{"400 Content-Length twice", 400, http.Header{"Content-Type": {"application/json"}, "Content-Length": {"31", "31"}}, `{"error":400,"message":"bad"}`, false, ""},
		{"200 one Content-Length", 200, http.Header{"Content-Type": {"application/json"}, "Content-Length": {"15"}}, `{"name":"Fern"}`, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v.CheckResponse(req, Response{Status: tt.status, Header: tt.header, Body: []byte(tt.body)})
			if valid := len(got) == 0; valid != tt.valid {
				t.Fatalf("valid = %v, want %v; violations: %v", valid, tt.valid, got)
			}
			if tt.wantField == "" {
				return
			}
			for _, vi := range got {
				if vi.Field == tt.wantField && vi.SpecLine > 0 {
					return
				}
			}
			t.Errorf("no violation at %s with a line of the document: %v", tt.wantField, got)
		})
	}
}

func TestIntegerFieldCheck(t *testing.T) {
	b64, b32 := integerFormats["int64"], integerFormats["int32"]
	i64 := integerField{name: "id", format: "int64", lo: b64[0], hi: b64[1]}
	i32 := integerField{name: "error", format: "int32", lo: b32[0], hi: b32[1]}
	tests := []struct {
		name   string
		f      integerField
		raw    string
		reject bool
	}{
		{"int64 zero", i64, "0", false},
		{"int64 max", i64, "9223372036854775807", false},
		{"int64 max+1", i64, "9223372036854775808", true},
		{"int64 min", i64, "-9223372036854775808", false},
		{"int64 min-1", i64, "-9223372036854775809", true},
		{"int64 max written with an exponent", i64, "9.223372036854775807e18", false},
		{"int64 max+1 written with an exponent", i64, "9.223372036854775808e18", true},
		{"1.0", i64, "1.0", false},
		{"1e3", i64, "1e3", false},
		{"huge exponent", i64, "1e999999999", true},
		{"exponent beyond int", i64, "1e99999999999999999999", true},
		{"tiny fraction the validator reads as 0", i64, "1e-999999999", true},
		{"zero with huge exponent", i64, "0e999999999", false},
		{"fraction hidden by float64", i64, "9007199254740993.5", true},
		{"plain fraction (the validator's)", i64, "1.5", false},
		{"a string (the validator's)", i64, `"1"`, false},
		{"null (the validator's)", i64, "null", false},
		{"int32 max", i32, "2147483647", false},
		{"int32 max+1", i32, "2147483648", true},
		{"int32 min-1", i32, "-2147483649", true},
		{"int32 min", i32, "-2147483648", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := tt.f.check([]byte(tt.raw))
			if got := msg != ""; got != tt.reject {
				t.Errorf("check(%s) = %q, reject = %v, want %v", tt.raw, msg, got, tt.reject)
			}
		})
	}
}

func TestNewRejectsBadDocuments(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"empty", ""},
		{"not YAML", "{{{"},
		{"not OpenAPI", "hello: world\n"},
		{"Swagger 2", "swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New([]byte(tt.doc))
			if !errors.Is(err, ErrInvalidDocument) {
				t.Errorf("New() error = %v, want ErrInvalidDocument", err)
			}
		})
	}
}

func TestDefaultIsBuiltOnce(t *testing.T) {
	a, b := mustDefault(t), mustDefault(t)
	if a != b {
		t.Errorf("Default() built two validators")
	}
}

// TestRepeatedSingletonsNeeded: libopenapi-validator reads the first
// Content-Type alone, so an answer a middleware gave a second one passes
// it; CheckResponse finds it.
func TestRepeatedSingletonsNeeded(t *testing.T) {
	v := mustDefault(t)
	req := Request{Method: "POST", Path: "/plants", Header: jsonHeader("Bearer x")}
	for _, cts := range [][]string{{"application/json", "text/plain"}, {"application/json", "application/json"}} {
		h := http.Header{"Content-Type": cts}
		hr := &http.Response{StatusCode: 200, Header: h, Body: http.NoBody, Request: req.httpRequest()}
		hr.Body = io.NopCloser(strings.NewReader(`{"name":"Fern"}`))
		if ok, errs := lib(v).v.ValidateHttpResponse(req.httpRequest(), hr); !ok {
			t.Errorf("%q: the validator alone finds it (%d errors): this check is no longer what catches it", cts, len(errs))
		}
		got := v.CheckResponse(req, Response{Status: 200, Header: h, Body: []byte(`{"name":"Fern"}`)})
		if len(got) != 1 || !strings.Contains(got[0].Message, "2 Content-Type fields") {
			t.Errorf("%q: violations %v, want one naming the 2 Content-Type fields", cts, got)
		}
	}
}
