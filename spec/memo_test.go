package spec

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestMemoGivesTheVerdictFound: a message judged again gets the verdict it
// got the first time, and messages that differ in anything the validator
// reads get their own.
func TestMemoGivesTheVerdictFound(t *testing.T) {
	t.Parallel()
	v, err := New(document)
	if err != nil {
		t.Fatal(err)
	}
	req := func(auth, ct, body string) Request {
		h := http.Header{}
		if auth != "" {
			h.Set("Authorization", auth)
		}
		if ct != "" {
			h.Set("Content-Type", ct)
		}
		return Request{Method: "POST", Path: "/plants", Header: h, Body: []byte(body)}
	}
	requests := []struct {
		r     Request
		valid bool
	}{
		{req("Bearer x", "application/json", `{"id":1,"name":"Fern"}`), true},
		{req("", "application/json", `{"id":1,"name":"Fern"}`), false},
		{req("Basic x", "application/json", `{"id":1,"name":"Fern"}`), false},
		{req("Bearer x", "text/plain", `{"id":1,"name":"Fern"}`), false},
		{req("Bearer x", "application/json", `{"id":"1","name":"Fern"}`), false},
		{req("Bearer x", "application/json", `{"id":1}`), false},
		{req("Bearer x", "application/json", `{"id":1,"name":"Fern"`), false},
	}
	for round := range 2 {
		for i, tt := range requests {
			got := v.CheckRequest(tt.r)
			if valid := len(got) == 0; valid != tt.valid {
				t.Errorf("round %d: request %d: valid = %v, want %v (%v)", round, i, valid, tt.valid, got)
			}
			if ok := v.BodyConforms("POST", "/plants", tt.r.Body); round == 1 && tt.r.Header.Get("Authorization") == "Bearer x" && tt.r.Header.Get("Content-Type") == "application/json" && ok != tt.valid {
				t.Errorf("round %d: request %d: BodyConforms = %v, want %v", round, i, ok, tt.valid)
			}
		}
	}

	r := req("Bearer x", "application/json", `{"id":1,"name":"Fern"}`)
	responses := []struct {
		status int
		header http.Header
		body   string
		valid  bool
	}{
		{200, http.Header{"Content-Type": {"application/json"}}, `{"name":"Fern"}`, true},
		{201, http.Header{"Content-Type": {"application/json"}}, `{"name":"Fern"}`, false},
		{200, http.Header{"Content-Type": {"text/plain"}}, `{"name":"Fern"}`, false},
		{200, http.Header{"Content-Type": {"application/json"}}, `{"name":7}`, false},
		// The first Content-Type is the memo's; a second one is judged
		// apart, every time.
		{200, http.Header{"Content-Type": {"application/json", "application/json"}}, `{"name":"Fern"}`, false},
		{400, http.Header{"Content-Type": {"application/json"}}, `{"error":1,"message":"bad"}`, true},
		{400, http.Header{"Content-Type": {"application/json"}}, `{"name":"Fern"}`, false},
		// The checks on the body, kept with the validator's verdict.
		{400, http.Header{"Content-Type": {"application/json"}}, `{"error":2147483648,"message":"bad"}`, false},
		{400, http.Header{"Content-Type": {"application/json"}}, `{"error":1e400,"message":"bad"}`, false},
		{200, http.Header{"Content-Type": {"application/json"}}, "", false},
		{200, http.Header{"Content-Type": {"application/json"}}, "{\"name\":\"F\xffrn\"}", false},
		{400, http.Header{"Content-Type": {"application/json"}, "Content-Length": {"36", "36"}}, `{"error":2147483648,"message":"bad"}`, false},
	}
	first := map[int][]Violation{}
	for round := range 2 {
		for i, tt := range responses {
			got := v.CheckResponse(r, Response{Status: tt.status, Header: tt.header, Body: []byte(tt.body)})
			if valid := len(got) == 0; valid != tt.valid {
				t.Errorf("round %d: response %d: valid = %v, want %v (%v)", round, i, valid, tt.valid, got)
			}
			if round == 0 {
				first[i] = got
			} else if !reflect.DeepEqual(got, first[i]) {
				t.Errorf("response %d judged again: %v, first %v", i, got, first[i])
			}
		}
	}
}

// TestMemoIsBounded: however many messages are judged, the memo keeps at
// most memoMax verdicts.
func TestMemoIsBounded(t *testing.T) {
	t.Parallel()
	v, err := New(document)
	if err != nil {
		t.Fatal(err)
	}
	for i := range memoMax + 10 {
		v.BodyConforms("POST", "/plants", []byte(`{"id":`+strconv.Itoa(i)+`,"name":"Fern"}`))
	}
	if n := len(v.memo.m); n > memoMax || n == 0 {
		t.Errorf("memo holds %d verdicts, want 1 to %d", n, memoMax)
	}
}

// TestMemoOffWhenResponseHeadersAreDescribed: a document that describes a
// response header has the validator read it, which the memo's key leaves
// out: two answers that differ only in that header get their own verdicts.
func TestMemoOffWhenResponseHeadersAreDescribed(t *testing.T) {
	t.Parallel()
	doc := strings.Replace(string(document), "          description: plant response\n",
		"          description: plant response\n          headers:\n            X-Trace:\n              required: true\n              schema:\n                type: integer\n", 1)
	if doc == string(document) {
		t.Fatal("the document's 200 response was not found to add a header to")
	}
	v, err := New([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !v.responseHeaders {
		t.Fatal("responseHeaders = false for a document that describes X-Trace")
	}
	r := Request{Method: "POST", Path: "/plants", Header: http.Header{"Authorization": {"Bearer x"}, "Content-Type": {"application/json"}}, Body: []byte(`{"id":1,"name":"Fern"}`)}
	with := v.CheckResponse(r, Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "X-Trace": {"7"}}, Body: []byte(`{"name":"Fern"}`)})
	without := v.CheckResponse(r, Response{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"name":"Fern"}`)})
	if len(with) != 0 || len(without) == 0 {
		t.Errorf("with X-Trace: %v (want none); without: %v (want a violation)", with, without)
	}
	if d, _ := New(document); d.responseHeaders {
		t.Error("responseHeaders = true for the embedded document, which describes no response header")
	}
}

// TestMemoKeepsShortValues: a short conforming body judged again comes with
// the value its first check decoded; a long one comes without (the memo
// keeps no decoded megabyte), and the caller decodes it.
func TestMemoKeepsShortValues(t *testing.T) {
	t.Parallel()
	v, err := New(document)
	if err != nil {
		t.Fatal(err)
	}
	long := `{"id":1,"name":"` + strings.Repeat("M", keptValueBytes) + `"}`
	for _, tt := range []struct {
		name, body string
		ok, kept   bool
	}{
		{"short", `{"id":1,"name":"Fern","tag":"green"}`, true, true},
		{"short, a number to canonicalize", `{"id":10e2,"name":"Fern"}`, true, true},
		{"at the bound", `{"id":1,"name":"` + strings.Repeat("M", keptValueBytes-len(`{"id":1,"name":""}`)) + `"}`, true, true},
		{"long", long, true, false},
		{"refused", `{"id":"1","name":"Fern"}`, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ok, first := v.ReadBody("POST", "/plants", []byte(tt.body))
			again, kept := v.ReadBody("POST", "/plants", []byte(tt.body))
			if ok != tt.ok || again != tt.ok {
				t.Fatalf("verdicts %v then %v, want %v", ok, again, tt.ok)
			}
			if ok && first == nil {
				t.Fatal("no value from the first check")
			}
			if got := kept != nil; got != tt.kept {
				t.Fatalf("value kept = %v, want %v", got, tt.kept)
			}
			if tt.kept && !reflect.DeepEqual(kept, first) {
				t.Errorf("kept %v, first %v", kept, first)
			}
		})
	}
}
