package reference

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// FuzzCreate sends POST /plants with fuzzed credentials, media type and
// body. Whatever comes in: no panic, never a 5xx, every answer a documented
// response of the document, and 200 exactly when the request keeps the
// contract, as judged independently of the handler by the spec's validator
// (which knows nothing of the token, so the token is judged here).
//
// The seed corpus is below and in testdata/fuzz/FuzzCreate; `go test` runs
// it as ordinary tests. To fuzz:
//
//	go test -run='^$' -fuzz=FuzzCreate -fuzztime=3m ./reference/
func FuzzCreate(f *testing.F) {
	seeds := []struct{ auth, mediaType, body string }{
		{"Bearer " + testToken, "application/json", `{"id":1,"name":"Fern","tag":"green"}`},
		{"Bearer " + testToken, "application/json; charset=utf-8", `{"id":-9223372036854775808,"name":""}`},
		{"Bearer " + testToken, "application/json", `{"id":9223372036854775808,"name":"Fern"}`},
		{"Bearer " + testToken, "application/json", `{"id":1.0,"name":"Fern"}`},
		{"Bearer " + testToken, "application/json", `{"id":1e-999999999,"name":"Fern"}`},
		{"Bearer " + testToken, "application/json", `{"id":1,"name":null,"tag":7}`},
		{"Bearer " + testToken, "application/json", `[{"id":1,"name":"Fern"}]`},
		{"Bearer " + testToken, "application/json", `{"id":1,"name":"Fern"`},
		{"Bearer " + testToken, "text/plain", `{"id":1,"name":"Fern"}`},
		{"Bearer " + testToken, "", `{"id":1,"name":"Fern"}`},
		{"Basic " + testToken, "application/json", `{"id":1,"name":"Fern"}`},
		{"Bearer ", "application/json", `{"id":1,"name":"Fern"}`},
		{"Bearer not-the-token", "application/json", `{"id":1,"name":"Fern"}`},
		{"", "application/json", `{"id":1,"name":"Fern"}`},
		{"Bearer " + testToken, "application/json", "{\"id\":1,\"name\":\"F\xffern\"}"},
	}
	for _, s := range seeds {
		f.Add(s.auth, s.mediaType, []byte(s.body))
	}
	v := validator(f)
	f.Fuzz(func(t *testing.T, auth, mediaType string, body []byte) {
		h := http.Header{}
		// Header values cannot hold control characters on the wire; the
		// fuzzer's strings may.
		if auth != "" {
			h.Set("Authorization", auth)
		}
		if mediaType != "" {
			h.Set("Content-Type", mediaType)
		}
		if !validHeaderValue(auth) || !validHeaderValue(mediaType) {
			t.Skip("not a header value an HTTP client can send")
		}
		x := post(t, newServer(t, Config{}), h, body)

		if x.resp.Status >= 500 {
			t.Fatalf("status %d for client input; body: %s", x.resp.Status, x.resp.Body)
		}
		if vs := v.CheckResponse(x.req, x.resp); len(vs) != 0 {
			t.Fatalf("response breaks the document: %v\nstatus %d, body: %s", vs, x.resp.Status, x.resp.Body)
		}
		keeps := len(v.CheckRequest(x.req)) == 0 && authorized(auth)
		if got := x.resp.Status == http.StatusOK; got != keeps {
			t.Fatalf("status %d, but the request keeps the contract: %v (validator: %v)\nbody: %q\nanswer: %s",
				x.resp.Status, keeps, v.CheckRequest(x.req), body, x.resp.Body)
		}
		if x.resp.Status == http.StatusOK {
			// The Plant record echoes name and tag as encoding/json reads
			// them from the request (by exact key: a struct would match
			// "NAME" too).
			for _, key := range []string{"name", "tag"} {
				if sent, got := member(t, body, key), member(t, x.resp.Body, key); !sameString(sent, got) {
					t.Fatalf("body %q answered with %s", body, x.resp.Body)
				}
			}
		}
	})
}

// member reads a string member of a JSON object; nil when it is absent.
func member(t *testing.T, object []byte, key string) *string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(object, &m); err != nil {
		t.Fatalf("%q is not a JSON object: %v", object, err)
	}
	raw, ok := m[key]
	if !ok {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s in %q is not a string: %v", key, object, err)
	}
	return &s
}

func sameString(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// authorized judges an Authorization value by the spec's words: "Bearer", a
// space, and the token. The scheme is case-insensitive (RFC 9110, 11.1).
func authorized(value string) bool {
	scheme, cred, ok := strings.Cut(value, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && cred == testToken
}

func validHeaderValue(s string) bool {
	for _, c := range []byte(s) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(s) == s
}
