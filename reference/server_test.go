package reference

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/spec"
)

const testToken = "s3cret-T0ken_for-tests"

// headers builds a request's headers; an empty value leaves the header out.
func headers(authorization, contentType string) http.Header {
	h := http.Header{}
	if authorization != "" {
		h.Set("Authorization", authorization)
	}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return h
}

var goodHeaders = headers("Bearer "+testToken, "application/json")

func ptr(s string) *string { return &s }

// exchange is one request to the handler and what came back.
type exchange struct {
	req  spec.Request
	resp spec.Response
}

// post sends one POST /plants to h, as a client would, and returns the
// exchange.
func post(t testing.TB, h http.Handler, header http.Header, body []byte) exchange {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/plants", bytes.NewReader(body))
	r.Header = header.Clone()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	res := w.Result()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	return exchange{
		req:  spec.Request{Method: http.MethodPost, Path: "/plants", Header: header, Body: body},
		resp: spec.Response{Status: res.StatusCode, Header: res.Header, Body: got},
	}
}

func newServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func validator(t testing.TB) *spec.Validator {
	t.Helper()
	v, err := spec.Default()
	if err != nil {
		t.Fatalf("spec.Default: %v", err)
	}
	return v
}

// A body of exactly n bytes holding a valid NewPlant, its name padded.
func bodyOfSize(n int) string {
	const frame = `{"id":7,"name":""}`
	return `{"id":7,"name":"` + strings.Repeat("x", n-len(frame)) + `"}`
}

func TestCreate(t *testing.T) {
	v := validator(t)
	type plant struct {
		Name string  `json:"name"`
		Tag  *string `json:"tag"`
	}
	tests := []struct {
		name   string
		header http.Header
		body   string
		stored []int64 // ids already in the store
		// wantKind is the error kind of a rejected request; 0 means the
		// request is valid and wantPlant is the Plant record expected.
		wantKind  errorKind
		wantPlant plant
	}{
		// Valid requests.
		{name: "with tag", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":"green"}`, wantPlant: plant{"Fern", ptr("green")}},
		{name: "without tag", header: goodHeaders, body: `{"id":1,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "empty tag", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":""}`, wantPlant: plant{"Fern", ptr("")}},
		{name: "empty name", header: goodHeaders, body: `{"id":1,"name":""}`, wantPlant: plant{"", nil}},
		{name: "id int64 maximum", header: goodHeaders, body: `{"id":9223372036854775807,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id int64 minimum", header: goodHeaders, body: `{"id":-9223372036854775808,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id zero", header: goodHeaders, body: `{"id":0,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id negative", header: goodHeaders, body: `{"id":-42,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id 1.0 is the integer 1", header: goodHeaders, body: `{"id":1.0,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id 1e3 is the integer 1000", header: goodHeaders, body: `{"id":1e3,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "id int64 maximum with an exponent", header: goodHeaders, body: `{"id":9.223372036854775807E18,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "unicode name and tag", header: goodHeaders, body: `{"id":1,"name":"Monstera 🌿 Ünïcödé \u00e9","tag":"日本"}`, wantPlant: plant{"Monstera 🌿 Ünïcödé é", ptr("日本")}},
		{name: "name with HTML and escapes", header: goodHeaders, body: `{"id":1,"name":"<b>&\"\\\n"}`, wantPlant: plant{"<b>&\"\\\n", nil}},
		{name: "unknown fields ignored", header: goodHeaders, body: `{"colour":"red","id":1,"name":"Fern","extra":{"a":[1,null]}}`, wantPlant: plant{"Fern", nil}},
		{name: "whitespace around the object", header: goodHeaders, body: " \n\t{ \"id\" : 1 , \"name\" : \"Fern\" } \r\n", wantPlant: plant{"Fern", nil}},
		{name: "charset parameter", header: headers("Bearer "+testToken, "application/json; charset=utf-8"), body: `{"id":1,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "media type in upper case", header: headers("Bearer "+testToken, "Application/JSON"), body: `{"id":1,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "scheme in lower case", header: headers("bearer "+testToken, "application/json"), body: `{"id":1,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "scheme in upper case", header: headers("BEARER "+testToken, "application/json"), body: `{"id":1,"name":"Fern"}`, wantPlant: plant{"Fern", nil}},
		{name: "body exactly at the limit", header: goodHeaders, body: bodyOfSize(defaultMaxBodyBytes), wantPlant: plant{strings.Repeat("x", defaultMaxBodyBytes-len(`{"id":7,"name":""}`)), nil}},
		{name: "another id than the one stored", header: goodHeaders, body: `{"id":2,"name":"Fern"}`, stored: []int64{1}, wantPlant: plant{"Fern", nil}},

		// Authentication.
		{name: "no Authorization", header: headers("", "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "Basic scheme with the right token", header: headers("Basic "+testToken, "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "bare Bearer", header: headers("Bearer", "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "Bearer and a space", header: headers("Bearer ", "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "wrong token", header: headers("Bearer wrong-token", "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "token with a suffix", header: headers("Bearer "+testToken+"x", "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "token prefix", header: headers("Bearer "+testToken[:len(testToken)-1], "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "token without a scheme", header: headers(testToken, "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "two spaces before the token", header: headers("Bearer  "+testToken, "application/json"), body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},
		{name: "two Authorization headers", header: http.Header{"Authorization": {"Bearer " + testToken, "Bearer " + testToken}, "Content-Type": {"application/json"}}, body: `{"id":1,"name":"Fern"}`, wantKind: errAuthentication},

		// Media type.
		{name: "text/plain", header: headers("Bearer "+testToken, "text/plain"), body: `{"id":1,"name":"Fern"}`, wantKind: errMediaType},
		{name: "no media type", header: headers("Bearer "+testToken, ""), body: `{"id":1,"name":"Fern"}`, wantKind: errMediaType},
		{name: "application/json-seq", header: headers("Bearer "+testToken, "application/json-seq"), body: `{"id":1,"name":"Fern"}`, wantKind: errMediaType},
		{name: "unparsable media type", header: headers("Bearer "+testToken, "application/json; charset"), body: `{"id":1,"name":"Fern"}`, wantKind: errMediaType},

		// The body as a whole.
		{name: "empty body", header: goodHeaders, body: ``, wantKind: errMalformedJSON},
		{name: "only whitespace", header: goodHeaders, body: " \n", wantKind: errMalformedJSON},
		{name: "malformed JSON", header: goodHeaders, body: `{"id":1,"name":`, wantKind: errMalformedJSON},
		{name: "single quotes", header: goodHeaders, body: `{'id':1,'name':'Fern'}`, wantKind: errMalformedJSON},
		{name: "trailing garbage", header: goodHeaders, body: `{"id":1,"name":"Fern"} x`, wantKind: errMalformedJSON},
		{name: "two objects", header: goodHeaders, body: `{"id":1,"name":"Fern"}{"id":2,"name":"Fern"}`, wantKind: errMalformedJSON},
		{name: "invalid UTF-8", header: goodHeaders, body: "{\"id\":1,\"name\":\"F\xffern\"}", wantKind: errMalformedJSON},
		{name: "byte order mark", header: goodHeaders, body: "\ufeff{\"id\":1,\"name\":\"Fern\"}", wantKind: errMalformedJSON},
		{name: "body an array", header: goodHeaders, body: `[{"id":1,"name":"Fern"}]`, wantKind: errNotAnObject},
		{name: "body a string", header: goodHeaders, body: `"Fern"`, wantKind: errNotAnObject},
		{name: "body a number", header: goodHeaders, body: `1`, wantKind: errNotAnObject},
		{name: "body null", header: goodHeaders, body: `null`, wantKind: errNotAnObject},
		{name: "body true", header: goodHeaders, body: `true`, wantKind: errNotAnObject},
		{name: "body one byte over the limit", header: goodHeaders, body: bodyOfSize(defaultMaxBodyBytes + 1), wantKind: errBodyTooLarge},

		// id.
		{name: "id missing", header: goodHeaders, body: `{"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id in another case", header: goodHeaders, body: `{"ID":1,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id a string", header: goodHeaders, body: `{"id":"1","name":"Fern"}`, wantKind: errInvalidField},
		{name: "id true", header: goodHeaders, body: `{"id":true,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id false", header: goodHeaders, body: `{"id":false,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id null", header: goodHeaders, body: `{"id":null,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id an object", header: goodHeaders, body: `{"id":{"value":1},"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id an array", header: goodHeaders, body: `{"id":[1],"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id 1.5", header: goodHeaders, body: `{"id":1.5,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id 1e-1", header: goodHeaders, body: `{"id":1e-1,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id a fraction float64 would hide", header: goodHeaders, body: `{"id":9007199254740993.5,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id one past int64 maximum", header: goodHeaders, body: `{"id":9223372036854775808,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id one past int64 minimum", header: goodHeaders, body: `{"id":-9223372036854775809,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id one past int64 maximum with an exponent", header: goodHeaders, body: `{"id":9.223372036854775808e18,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id with a huge exponent", header: goodHeaders, body: `{"id":1e999999999,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id with an exponent beyond int64", header: goodHeaders, body: `{"id":1e99999999999999999999,"name":"Fern"}`, wantKind: errInvalidField},
		{name: "id with a huge negative exponent", header: goodHeaders, body: `{"id":1e-999999999,"name":"Fern"}`, wantKind: errInvalidField},

		// name.
		{name: "name missing", header: goodHeaders, body: `{"id":1}`, wantKind: errInvalidField},
		{name: "name a number", header: goodHeaders, body: `{"id":1,"name":7}`, wantKind: errInvalidField},
		{name: "name true", header: goodHeaders, body: `{"id":1,"name":true}`, wantKind: errInvalidField},
		{name: "name null", header: goodHeaders, body: `{"id":1,"name":null}`, wantKind: errInvalidField},
		{name: "name an object", header: goodHeaders, body: `{"id":1,"name":{"text":"Fern"}}`, wantKind: errInvalidField},
		{name: "name an array", header: goodHeaders, body: `{"id":1,"name":["Fern"]}`, wantKind: errInvalidField},

		// tag.
		{name: "tag a number", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":7}`, wantKind: errInvalidField},
		{name: "tag false", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":false}`, wantKind: errInvalidField},
		{name: "tag null", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":null}`, wantKind: errInvalidField},
		{name: "tag an object", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":{}}`, wantKind: errInvalidField},
		{name: "tag an array", header: goodHeaders, body: `{"id":1,"name":"Fern","tag":["green"]}`, wantKind: errInvalidField},

		// Every field wrong at once.
		{name: "empty object", header: goodHeaders, body: `{}`, wantKind: errInvalidField},

		// Store.
		{name: "duplicate id", header: goodHeaders, body: `{"id":1,"name":"Fern"}`, stored: []int64{1}, wantKind: errDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := NewMemoryStore()
			for _, id := range tt.stored {
				if err := store.Add(context.Background(), Plant{ID: id, Name: "stored"}); err != nil {
					t.Fatalf("store id %d: %v", id, err)
				}
			}
			x := post(t, newServer(t, Config{Store: store}), tt.header, []byte(tt.body))

			if vs := v.CheckResponse(x.req, x.resp); len(vs) != 0 {
				t.Errorf("response breaks the document: %v\nbody: %s", vs, x.resp.Body)
			}
			if got, want := x.resp.Header.Get("Content-Type"), "application/json"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			if tt.wantKind != 0 {
				checkError(t, x.resp, tt.wantKind)
				if got, want := store.Len(), len(tt.stored); got != want {
					t.Errorf("store holds %d plants after a rejected request, want %d", got, want)
				}
				return
			}

			if got, want := x.resp.Status, http.StatusOK; got != want {
				t.Fatalf("status = %d, want %d; body: %.300s", got, want, x.resp.Body)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(x.resp.Body, &fields); err != nil {
				t.Fatalf("response is not a JSON object: %v", err)
			}
			if _, ok := fields["id"]; ok {
				t.Errorf("Plant record has an id: %s", x.resp.Body)
			}
			wantFields := 1 // name
			if tt.wantPlant.Tag != nil {
				wantFields = 2 // name and tag
			}
			if got, want := len(fields), wantFields; got != want {
				t.Errorf("Plant record has %d fields, want %d: %.300s", got, want, x.resp.Body)
			}
			var got plant
			if err := json.Unmarshal(x.resp.Body, &got); err != nil {
				t.Fatalf("decode Plant record: %v", err)
			}
			if got, want := got.Name, tt.wantPlant.Name; got != want {
				t.Errorf("name = %.80q, want %.80q", got, want)
			}
			if got, want := got.Tag, tt.wantPlant.Tag; (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Errorf("tag = %v, want %v", show(got), show(want))
			}
			if got, want := store.Len(), len(tt.stored)+1; got != want {
				t.Errorf("store holds %d plants, want %d", got, want)
			}
		})
	}
}

func show(s *string) string {
	if s == nil {
		return "absent"
	}
	return `"` + *s + `"`
}

// checkError checks that resp is an Error record of kind: its status, its
// code, and a message.
func checkError(t *testing.T, resp spec.Response, kind errorKind) {
	t.Helper()
	row := errorTable[kind]
	if got, want := resp.Status, row.status; got != want {
		t.Errorf("status = %d, want %d; body: %s", got, want, resp.Body)
	}
	var rec struct {
		Error   *int32  `json:"error"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(resp.Body, &rec); err != nil {
		t.Fatalf("response is not an Error record: %v; body: %s", err, resp.Body)
	}
	if rec.Error == nil || rec.Message == nil {
		t.Fatalf("Error record lacks error or message: %s", resp.Body)
	}
	if got, want := *rec.Error, row.code; got != want {
		t.Errorf("error = %d, want %d (%s)", got, want, *rec.Message)
	}
	if !strings.HasSuffix(*rec.Message, ".") || len(*rec.Message) < 10 {
		t.Errorf("message %q is not a sentence", *rec.Message)
	}
}

func TestOversizeBodyWithSmallLimit(t *testing.T) {
	s := newServer(t, Config{MaxBodyBytes: 32})
	tests := []struct {
		name     string
		body     string
		wantKind errorKind
	}{
		{"within the limit", `{"id":1,"name":"Fern"}`, 0},
		{"over the limit", `{"id":2,"name":"Fern","tag":"a tag that is too long"}`, errBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := post(t, s, goodHeaders, []byte(tt.body))
			if vs := validator(t).CheckResponse(x.req, x.resp); len(vs) != 0 {
				t.Errorf("response breaks the document: %v", vs)
			}
			if tt.wantKind == 0 {
				if got, want := x.resp.Status, http.StatusOK; got != want {
					t.Errorf("status = %d, want %d", got, want)
				}
				return
			}
			checkError(t, x.resp, tt.wantKind)
		})
	}
}

func TestOtherRoutes(t *testing.T) {
	s := newServer(t, Config{})
	tests := []struct {
		method, target string
		wantKind       errorKind
		wantAllow      string
	}{
		{http.MethodGet, "/plants", errMethodNotAllowed, "POST"},
		{http.MethodPut, "/plants", errMethodNotAllowed, "POST"},
		{http.MethodDelete, "/plants", errMethodNotAllowed, "POST"},
		{http.MethodHead, "/plants", errMethodNotAllowed, "POST"},
		{http.MethodGet, "/", errNotFound, ""},
		{http.MethodPost, "/plants/1", errNotFound, ""},
		{http.MethodPost, "/plant", errNotFound, ""},
		{http.MethodGet, "/pets", errNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.target, strings.NewReader(`{"id":1,"name":"Fern"}`))
			r.Header = goodHeaders.Clone()
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if got, want := w.Header().Get("Allow"), tt.wantAllow; got != want {
				t.Errorf("Allow = %q, want %q", got, want)
			}
			if got, want := w.Header().Get("Content-Type"), "application/json"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			if tt.method == http.MethodHead {
				// A recorder keeps a HEAD response's body; a real server
				// would not send it.
				if got, want := w.Code, errorTable[tt.wantKind].status; got != want {
					t.Errorf("status = %d, want %d", got, want)
				}
				return
			}
			checkError(t, spec.Response{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}, tt.wantKind)
		})
	}
}

func TestErrorTableCodesAreDistinct(t *testing.T) {
	seen := map[int32]errorKind{}
	for kind, row := range errorTable {
		if other, ok := seen[row.code]; ok {
			t.Errorf("kinds %d and %d share the code %d", kind, other, row.code)
		}
		seen[row.code] = kind
		if row.status < 400 || row.status > 599 {
			t.Errorf("kind %d has the status %d, not an error", kind, row.status)
		}
	}
	if got, want := len(errorTable), int(errInternal); got != want {
		t.Errorf("errorTable has %d rows, want one per kind, %d", got, want)
	}
}

// TestNoTokenInResponsesOrLog sends every kind of request, including ones
// that carry the token in odd places, and looks for the token in every
// response and in the request log.
func TestNoTokenInResponsesOrLog(t *testing.T) {
	var log bytes.Buffer
	s := newServer(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	requests := []struct {
		header http.Header
		body   string
	}{
		{goodHeaders, `{"id":1,"name":"Fern"}`},
		{goodHeaders, `{"id":1,"name":"Fern"}`}, // duplicate
		{headers("Basic "+testToken, "application/json"), `{"id":2,"name":"Fern"}`},
		{headers("Bearer "+testToken+"x", "application/json"), `{"id":3,"name":"Fern"}`},
		{headers(testToken, testToken), `{"id":4,"name":"Fern"}`},
		{headers("Bearer "+testToken, testToken), `{"id":5,"name":"Fern"}`},
		{goodHeaders, `{"id":"` + testToken + `","name":"Fern"}`},
		{goodHeaders, `{"id":6,"name":` + testToken + `}`},
		{goodHeaders, `{"id":7,"name":"Fern"} ` + testToken},
	}
	for _, rq := range requests {
		x := post(t, s, rq.header, []byte(rq.body))
		if bytes.Contains(x.resp.Body, []byte(testToken)) {
			t.Errorf("response to %s holds the token: %s", rq.body, x.resp.Body)
		}
		for name, values := range x.resp.Header {
			for _, value := range values {
				if strings.Contains(value, testToken) {
					t.Errorf("response header %s holds the token", name)
				}
			}
		}
	}
	if got, want := strings.Count(log.String(), "\n"), len(requests); got != want {
		t.Errorf("log has %d lines, want %d:\n%s", got, want, log.String())
	}
	if strings.Contains(log.String(), testToken) {
		t.Errorf("log holds the token:\n%s", log.String())
	}
}

func TestRequestLog(t *testing.T) {
	var log bytes.Buffer
	s := newServer(t, Config{Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	x := post(t, s, goodHeaders, []byte(`{"id":1,"name":"Fern"}`))
	var line struct {
		Msg      string `json:"msg"`
		Method   string `json:"method"`
		Path     string `json:"path"`
		Status   int    `json:"status"`
		Duration *int64 `json:"duration"`
		Bytes    int    `json:"bytes"`
	}
	if err := json.Unmarshal(log.Bytes(), &line); err != nil {
		t.Fatalf("log line is not one JSON object: %v\n%s", err, log.String())
	}
	if got, want := line.Method, "POST"; got != want {
		t.Errorf("method = %q, want %q", got, want)
	}
	if got, want := line.Path, "/plants"; got != want {
		t.Errorf("path = %q, want %q", got, want)
	}
	if got, want := line.Status, x.resp.Status; got != want {
		t.Errorf("status = %d, want %d", got, want)
	}
	if got, want := line.Bytes, len(x.resp.Body); got != want {
		t.Errorf("bytes = %d, want %d", got, want)
	}
	if line.Duration == nil {
		t.Errorf("log line has no duration: %s", log.String())
	}
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"token", Config{Token: "t"}, false},
		{"no token", Config{}, true},
		{"negative body limit", Config{Token: "t", MaxBodyBytes: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if got, want := err != nil, tt.wantErr; got != want {
				t.Errorf("New() error = %v, want an error: %v", err, want)
			}
		})
	}
}

// failingStore fails as a real database might.
type failingStore struct{}

func (failingStore) Add(context.Context, Plant) error { return errors.New("disk on fire at /var/db") }

func TestStoreFailureIsHidden(t *testing.T) {
	var log bytes.Buffer
	s := newServer(t, Config{Store: failingStore{}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	x := post(t, s, goodHeaders, []byte(`{"id":1,"name":"Fern"}`))
	checkError(t, x.resp, errInternal)
	if bytes.Contains(x.resp.Body, []byte("disk on fire")) {
		t.Errorf("response shows the store's error: %s", x.resp.Body)
	}
	if !strings.Contains(log.String(), "disk on fire") {
		t.Errorf("log does not record the store's error:\n%s", log.String())
	}
}

func TestParseInt64(t *testing.T) {
	tests := []struct {
		lit     string
		want    int64
		wantMsg string
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"0.0", 0, ""},
		{"-0.0e-5", 0, ""},
		{"0e999999999", 0, ""},
		{"1.0", 1, ""},
		{"1.000", 1, ""},
		{"1e3", 1000, ""},
		{"1E+3", 1000, ""},
		{"1.5e1", 15, ""},
		{"-1.5e1", -15, ""},
		{"1500e-2", 15, ""},
		{"10e-1", 1, ""},
		{"9223372036854775807", 1<<63 - 1, ""},
		{"9223372036854775807.0", 1<<63 - 1, ""},
		{"-9223372036854775808", -1 << 63, ""},
		{"-9.223372036854775808e18", -1 << 63, ""},
		{"1" + strings.Repeat("0", 1000) + "e-1000", 1, ""},
		{"0." + strings.Repeat("0", 1000) + "1e1001", 1, ""},
		{"1.5", 0, msgIDFraction},
		{"15e-1", 0, msgIDFraction},
		{"1e-1", 0, msgIDFraction},
		{"1e-999999999", 0, msgIDFraction},
		{"1e-99999999999999999999", 0, msgIDFraction},
		{"9223372036854775808", 0, msgIDRange},
		{"-9223372036854775809", 0, msgIDRange},
		{"9223372036854775807.5", 0, msgIDFraction},
		{"9.223372036854775808e18", 0, msgIDRange},
		{"1e19", 0, msgIDRange},
		{"1e999999999", 0, msgIDRange},
		{"-1e999999999", 0, msgIDRange},
		{"1e99999999999999999999", 0, msgIDRange},
		{"1e1125899906842624", 0, msgIDRange},
		{`"1"`, 0, msgIDNotInteger},
		{"null", 0, msgIDNotInteger},
		{"true", 0, msgIDNotInteger},
		{"[1]", 0, msgIDNotInteger},
		{"{}", 0, msgIDNotInteger},
	}
	for _, tt := range tests {
		name := tt.lit
		if len(name) > 40 {
			name = name[:40] + "…"
		}
		t.Run(name, func(t *testing.T) {
			got, msg := parseInt64(json.RawMessage(tt.lit))
			if msg != tt.wantMsg {
				t.Fatalf("message = %q, want %q", msg, tt.wantMsg)
			}
			if got != tt.want {
				t.Errorf("value = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestParseString: a string is read as encoding/json reads it, escapes or
// none; anything but a string is refused.
func TestParseString(t *testing.T) {
	tests := []struct {
		name, raw string
		ok        bool
	}{
		{"plain", `"Monstera deliciosa"`, true},
		{"empty", `""`, true},
		{"non-ASCII", `"葉蘭 🌿 مرحبا"`, true},
		{"escaped quote", `"say \"hi\""`, true},
		{"escaped backslash", `"a\\b"`, true},
		{"escaped solidus", `"a\/b"`, true},
		{"escaped newline", `"a\nb"`, true},
		{"unicode escape", `"Caf\u00e9"`, true},
		{"surrogate pair", `"\ud83c\udf3f"`, true},
		{"null", `null`, false},
		{"number", `7`, false},
		{"array", `["a"]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseString(json.RawMessage(tt.raw))
			if ok != tt.ok {
				t.Fatalf("parseString(%s) ok = %v, want %v", tt.raw, ok, tt.ok)
			}
			var want string
			if tt.ok {
				if err := json.Unmarshal([]byte(tt.raw), &want); err != nil {
					t.Fatal(err)
				}
			}
			if got != want {
				t.Errorf("parseString(%s) = %q, want %q", tt.raw, got, want)
			}
		})
	}
}
