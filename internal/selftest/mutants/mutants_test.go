package mutants

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Tokens as the self-test issues them: rand.Text() (26 characters), and the
// 96 characters of a LongToken mutant's.
const (
	shortToken = "N7QZ4VKMHX2PL6RTYW3BCDFGJA"
	longToken  = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
)

// newMutants are the mutants of real servers' defects, each of which has a
// row in TestDefectShows and answers ordinary traffic as the reference
// does.
var newMutants = []string{
	"needs-content-length", "needs-accept-json", "fixed-layout-reader",
	"number-like-name", "html-escape", "trim-name", "omitempty-tag", "strip-nul", "utf8mb3",
	"varchar-255", "nfc-normalize", "lower-case-tag", "crlf-to-lf", "sprintf-json",
	"trailing-data", "lenient-json5", "nan-infinity", "loose-numbers", "raw-control-chars",
	"unclosed-object", "case-insensitive-keys",
	"token-prefix", "token-truncated", "token-fold-case", "token-bcrypt-72", "token-contains",
	"token-split-space", "token-split-comma", "token-regex-unanchored", "token-last-word", "token-replace-scheme",
	"token-trim-prefix", "token-slice-7",
	"media-type-prefix", "media-type-contains",
	"media-type-split-exact", "media-type-lowercase-param-only", "media-type-param-name-case",
	"bearer-case-sensitive",
	"missing-return",
	// Narrow siblings (issue 41).
	"null-tag-is-absent", "empty-body-as-defaults", "null-body-as-defaults", "strip-json-comments",
	"token-scheme-alias", "jwt-scheme", "bearer-prefix-slice-7", "token-split-whitespace", "httpbearer-403",
	"text-plain-as-json", "media-type-json-suffix", "accept-urlencoded",
	"status-422-validation", "nil-body-500", "json-error-page", "error-content-type-sniffed",
}

// request is one POST /plants.
type request struct {
	auth        func(token string) string // the Authorization value; nil means "Bearer " and the token, "" no header
	contentType string                    // "" means application/json
	accept      string                    // "" means application/json, "-" no header
	body        string
	chunked     bool   // send the body chunked, without Content-Length
	key         string // the Idempotency-Key header ("": none)
}

// answer is a response, read whole.
type answer struct {
	status      int
	contentType string
	body        []byte
}

// serve starts the reference with token, wrapped by m unless m is nil.
func serve(t *testing.T, m *Mutant, token string) *httptest.Server {
	t.Helper()
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = ref
	if m != nil {
		h = m.Wrap(ref, token)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, srv *httptest.Server, token string, rq request) answer {
	t.Helper()
	var body io.Reader = strings.NewReader(rq.body)
	if rq.chunked {
		body = io.MultiReader(body) // a reader of unknown length: sent chunked
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/plants", body)
	if err != nil {
		t.Fatal(err)
	}
	auth := "Bearer " + token
	if rq.auth != nil {
		auth = rq.auth(token)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", cmp.Or(rq.contentType, "application/json"))
	if rq.key != "" {
		req.Header.Set("Idempotency-Key", rq.key)
	}
	if rq.accept != "-" {
		req.Header.Set("Accept", cmp.Or(rq.accept, "application/json"))
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// record decodes an answer's body as one JSON object.
func (a answer) record(t *testing.T) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(a.body, &obj); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", a.body, err)
	}
	return obj
}

// check judges the reference's answer and the mutant's to one request.
type check func(t *testing.T, ref, mut answer)

// statuses: the reference answers ref and the mutant mut.
func statuses(ref, mut int) check {
	return func(t *testing.T, r, m answer) {
		t.Helper()
		if r.status != ref || m.status != mut {
			t.Errorf("reference %d, mutant %d; want %d and %d\nreference: %s\nmutant: %s", r.status, m.status, ref, mut, r.body, m.body)
		}
	}
}

// absent stands for a member left out of a record.
type absent struct{}

// member is a member of a record, or absent{}.
func member(t *testing.T, a answer, field string) any {
	t.Helper()
	v, ok := a.record(t)[field]
	if !ok {
		return absent{}
	}
	return v
}

// mutantHas: the mutant's record has got as field.
func mutantHas(field string, got any) check {
	return func(t *testing.T, _, m answer) {
		t.Helper()
		if v := member(t, m, field); !reflect.DeepEqual(v, got) {
			t.Errorf("mutant answers %s %#v, want %#v: %s", field, v, got, m.body)
		}
	}
}

// echo: both accept; the reference's Plant record has sent as field, the
// mutant's has got (or no such member, for absent{}).
func echo(field string, sent, got any) check {
	return func(t *testing.T, r, m answer) {
		t.Helper()
		statuses(http.StatusOK, http.StatusOK)(t, r, m)
		if v := member(t, r, field); !reflect.DeepEqual(v, sent) {
			t.Errorf("reference answers %s %#v, want %#v: %s", field, v, sent, r.body)
		}
		mutantHas(field, got)(t, r, m)
	}
}

// refused: the reference accepts and the mutant refuses with 400 and an
// Error record as application/json.
func refused(t *testing.T, r, m answer) {
	t.Helper()
	statuses(http.StatusOK, http.StatusBadRequest)(t, r, m)
	if m.contentType != "application/json" {
		t.Errorf("mutant's refusal is %s, want application/json", m.contentType)
	}
	obj := m.record(t)
	if _, ok := obj["error"].(float64); !ok {
		t.Errorf("mutant's refusal has no numeric error: %s", m.body)
	}
	if _, ok := obj["message"].(string); !ok {
		t.Errorf("mutant's refusal has no message: %s", m.body)
	}
}

func all(checks ...check) check {
	return func(t *testing.T, r, m answer) {
		t.Helper()
		for _, c := range checks {
			c(t, r, m)
		}
	}
}

func plant(name, tag string) string {
	b, _ := json.Marshal(map[string]any{"id": 1, "name": name, "tag": tag})
	return string(b)
}

// TestDefectShows sends each mutant a request that shows its defect, and
// the reference the same, and compares the answers.
func TestDefectShows(t *testing.T) {
	withAuth := func(f func(token string) string) request { return request{auth: f, body: `{"id":1,"name":"Fern"}`} }
	withBody := func(body string) request { return request{body: body} }
	tests := []struct {
		mutant, name string
		rq           request
		check        check
	}{
		{"needs-content-length", "chunked", request{body: plant("Fern", "green"), chunked: true}, refused},
		{"needs-accept-json", "no Accept", request{body: plant("Fern", "green"), accept: "-"}, all(
			statuses(http.StatusOK, http.StatusNotAcceptable),
			func(t *testing.T, _, m answer) {
				if !strings.HasPrefix(m.contentType, "text/plain") {
					t.Errorf("mutant's 406 is %s, want text/plain", m.contentType)
				}
			})},
		{"needs-accept-json", "Accept */*", request{body: plant("Fern", "green"), accept: "*/*"}, statuses(http.StatusOK, http.StatusNotAcceptable)},
		{"fixed-layout-reader", "name first", withBody(`{"name":"Fern","id":1}`), refused},
		{"fixed-layout-reader", "white space", withBody(`{"id": 1, "name": "Fern"}`), refused},
		{"fixed-layout-reader", "still refuses invalid", withBody(`{"id":1}`), statuses(http.StatusBadRequest, http.StatusBadRequest)},

		{"number-like-name", "number", withBody(plant("42", "green")), echo("name", "42", 42.0)},
		{"number-like-name", "exponent", withBody(plant("Fern", "1e3")), echo("tag", "1e3", 1000.0)},
		{"number-like-name", "literal", withBody(plant("Fern", "true")), echo("tag", "true", true)},
		{"number-like-name", "null", withBody(plant("null", "green")), echo("name", "null", nil)},
		{"html-escape", "name", withBody(plant("Fern & <Moss>", "green")), echo("name", "Fern & <Moss>", "Fern &amp; &lt;Moss&gt;")},
		{"html-escape", "tag", withBody(plant("Fern", `it's "green"`)), echo("tag", `it's "green"`, "it&#39;s &#34;green&#34;")},
		{"trim-name", "name", withBody(plant(" Fern ", "green")), echo("name", " Fern ", "Fern")},
		{"trim-name", "tag", withBody(plant("Fern", "green\n")), echo("tag", "green\n", "green")},
		{"omitempty-tag", "empty tag", withBody(plant("Fern", "")), echo("tag", "", absent{})},
		{"strip-nul", "name", withBody(plant("Fe\x00rn", "green")), echo("name", "Fe\x00rn", "Fern")},
		{"strip-nul", "tag", withBody(plant("Fern", "\x00")), echo("tag", "\x00", "")},
		{"utf8mb3", "emoji", withBody(plant("Fern 🌿", "green")), echo("name", "Fern 🌿", "Fern ?")},
		{"utf8mb3", "BMP kept", withBody(plant("Farn", "grün 葉")), echo("tag", "grün 葉", "grün 葉")},
		{"varchar-255", "long name", withBody(plant(strings.Repeat("é", 300), "green")),
			echo("name", strings.Repeat("é", 300), strings.Repeat("é", 255))},
		{"nfc-normalize", "name", withBody(plant("Cafe\u0301", "green")), echo("name", "Cafe\u0301", "Caf\u00e9")},
		{"nfc-normalize", "tag", withBody(plant("Fern", "A\u030angstr\u00f6m")), echo("tag", "A\u030angstr\u00f6m", "\u00c5ngstr\u00f6m")},
		{"lower-case-tag", "tag", withBody(plant("Fern", "Green")), echo("tag", "Green", "green")},
		{"lower-case-tag", "name kept", withBody(plant("Fern", "Green")), echo("name", "Fern", "Fern")},
		{"crlf-to-lf", "name", withBody(plant("a\r\nb\rc", "green")), echo("name", "a\r\nb\rc", "a\nb\nc")},
		{"crlf-to-lf", "tag", withBody(plant("Fern", "x\r")), echo("tag", "x\r", "x\n")},
		{"sprintf-json", "quote", withBody(plant(`say "hi"`, "green")), all(
			statuses(http.StatusOK, http.StatusOK),
			func(t *testing.T, _, m answer) {
				if json.Valid(m.body) {
					t.Errorf("mutant's answer is valid JSON: %s", m.body)
				}
			})},
		{"sprintf-json", "backslash", withBody(plant(`a\b`, "green")), echo("name", `a\b`, "a\b")},

		{"trailing-data", "garbage", withBody(`{"id":1,"name":"Fern"}x`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"trailing-data", "two objects", withBody(`{"id":1,"name":"Fern"}{"id":2,"name":"Moss"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"lenient-json5", "JSON5", withBody("{id: 1, 'name': 'it\\'s \"Fern\"', /* a comment */ \"tag\": \"green\", // end\n}"),
			all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", `it's "Fern"`))},
		{"lenient-json5", "trailing comma", withBody(`{"id":1,"name":"Fern",}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"lenient-json5", "cut off", withBody(`{"id":1,"name":"Fern",`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"nan-infinity", "unknown member", withBody(`{"id":1,"name":"Fern","height":NaN}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"nan-infinity", "tag", withBody(`{"id":1,"name":"Fern","tag":-Infinity}`), all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("tag", absent{}))},
		{"nan-infinity", "in a string", withBody(`{"id":1,"name":"NaN"`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"loose-numbers", "hexadecimal", withBody(`{"id":0x1F,"name":"Fern"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"loose-numbers", "plus", withBody(`{"id":+5,"name":"Fern"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"loose-numbers", "leading zero", withBody(`{"id":0123,"name":"Fern"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"raw-control-chars", "tab", withBody("{\"id\":1,\"name\":\"Fe\trn\"}"),
			all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", "Fe\trn"))},
		{"raw-control-chars", "newline", withBody("{\"id\":1,\"name\":\"Fern\",\"tag\":\"a\nb\"}"), statuses(http.StatusBadRequest, http.StatusOK)},
		{"unclosed-object", "no brace", withBody(`{"id":1,"name":"Fern"`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"unclosed-object", "cut in a value", withBody(`{"id":1,"name":"Fe`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"case-insensitive-keys", "capitals", withBody(`{"ID":1,"Name":"Fern"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"case-insensitive-keys", "TAG", withBody(`{"id":1,"name":"Fern","TAG":"green"}`), echo("tag", absent{}, "green")},
		{"case-insensitive-keys", "invalid UTF-8", withBody("{\"ID\":1,\"name\":\"F\xffern\"}"), statuses(http.StatusBadRequest, http.StatusBadRequest)},

		{"token-prefix", "one more", withAuth(func(tok string) string { return "Bearer " + tok + "x" }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-prefix", "twice", withAuth(func(tok string) string { return "Bearer " + tok + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-truncated", "last dropped", withAuth(func(tok string) string { return "Bearer " + tok[:len(tok)-1] }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-truncated", "first half", withAuth(func(tok string) string { return "Bearer " + tok[:len(tok)/2] }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-truncated", "empty", withAuth(func(string) string { return "Bearer " }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-fold-case", "lower case", withAuth(func(tok string) string { return "Bearer " + strings.ToLower(tok) }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-bcrypt-72", "changed after byte 72", request{auth: func(tok string) string { return "Bearer " + tok[:72] + "X" + tok[73:] }, body: `{"id":1,"name":"Fern"}`},
			statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-contains", "Basic", withAuth(func(tok string) string { return "Basic " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-contains", "prepended", withAuth(func(tok string) string { return "Bearer x" + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-split-space", "space and more", withAuth(func(tok string) string { return "Bearer " + tok + " x" }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-split-comma", "comma and more", withAuth(func(tok string) string { return "Bearer " + tok + ",x" }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-split-comma", "a second credential", withAuth(func(tok string) string { return "Bearer " + tok + ", Bearer " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-split-comma", "space and more", withAuth(func(tok string) string { return "Bearer " + tok + " x" }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-regex-unanchored", "semicolon", withAuth(func(tok string) string { return "Bearer " + tok + ";x" }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-regex-unanchored", "tab", withAuth(func(tok string) string { return "Bearer " + tok + "\tx" }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-regex-unanchored", "one more", withAuth(func(tok string) string { return "Bearer " + tok + "x" }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-last-word", "a word before", withAuth(func(tok string) string { return "Bearer x " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-last-word", "space and more", withAuth(func(tok string) string { return "Bearer " + tok + " x" }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-replace-scheme", "the scheme twice", withAuth(func(tok string) string { return "Bearer Bearer " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-replace-scheme", "bare token", withAuth(func(tok string) string { return tok }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-trim-prefix", "bare token", withAuth(func(tok string) string { return tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-slice-7", "Digest", withAuth(func(tok string) string { return "Digest " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},

		{"media-type-prefix", "json-patch", request{contentType: "application/json-patch+json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusOK)},
		{"media-type-contains", "text/json", request{contentType: "text/json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusOK)},
		{"media-type-contains", "x-json", request{contentType: "application/x-json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusOK)},

		{"media-type-split-exact", "capitals", request{contentType: "Application/JSON", body: plant("Fern", "green")}, refused},
		{"media-type-split-exact", "space before ;", request{contentType: "application/json ; charset=utf-8", body: plant("Fern", "green")}, refused},
		{"media-type-split-exact", "charset kept", request{contentType: "application/json;charset=UTF-8", body: plant("Fern", "green")}, statuses(http.StatusOK, http.StatusOK)},
		{"media-type-lowercase-param-only", "capitals", request{contentType: "Application/JSON", body: plant("Fern", "green")}, refused},
		{"media-type-lowercase-param-only", "quoted", request{contentType: `application/json;charset="utf-8"`, body: plant("Fern", "green")}, refused},
		{"media-type-lowercase-param-only", "charset=UTF-8 kept", request{contentType: "application/json; charset=UTF-8", body: plant("Fern", "green")}, statuses(http.StatusOK, http.StatusOK)},
		{"media-type-param-name-case", "CHARSET", request{contentType: "application/json;CHARSET=UTF-8", body: plant("Fern", "green")}, refused},
		{"media-type-param-name-case", "charset kept", request{contentType: "application/json; charset=utf-8", body: plant("Fern", "green")}, statuses(http.StatusOK, http.StatusOK)},
		{"bearer-case-sensitive", "bearer", request{auth: func(tok string) string { return "bearer " + tok }, body: plant("Fern", "green")}, refused},
		{"bearer-case-sensitive", "BEARER", request{auth: func(tok string) string { return "BEARER " + tok }, body: plant("Fern", "green")}, refused},

		{"missing-return", "no name", withBody(`{"id":1}`), all(
			statuses(http.StatusBadRequest, http.StatusBadRequest),
			func(t *testing.T, r, m answer) {
				if !json.Valid(r.body) || json.Valid(m.body) {
					t.Errorf("want one JSON value from the reference and two from the mutant:\n%s\n%s", r.body, m.body)
				}
				d := json.NewDecoder(bytes.NewReader(m.body))
				var e, p map[string]any
				if d.Decode(&e) != nil || d.Decode(&p) != nil || e["error"] == nil || !reflect.DeepEqual(p, map[string]any{"name": ""}) {
					t.Errorf("mutant's answer is not an Error record then a Plant record: %s", m.body)
				}
			})},
		{"missing-return", "no id", withBody(`{"name":"Fern"}`), func(t *testing.T, r, m answer) {
			if !bytes.Equal(r.body, m.body) {
				t.Errorf("mutant answers %s, reference %s", m.body, r.body)
			}
		}},

		// Narrow siblings (issue 41): each shows its defect on its own
		// footprint and keeps the reference's answer beside it.
		{"null-tag-is-absent", "null tag", withBody(`{"id":1,"name":"Fern","tag":null}`), all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("tag", absent{}))},
		{"null-tag-is-absent", "number tag", withBody(`{"id":1,"name":"Fern","tag":7}`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"empty-body-as-defaults", "empty", withBody(``), all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", ""))},
		{"empty-body-as-defaults", "malformed", withBody(`{"id":1,`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"null-body-as-defaults", "null", withBody(`null`), all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", ""))},
		{"null-body-as-defaults", "array", withBody(`[{"id":1,"name":"Fern"}]`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"strip-json-comments", "comments", withBody("{\"id\":1, /* c */ \"name\":\"Fern /* kept */\" // end\n}"),
			all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", "Fern /* kept */"))},
		{"strip-json-comments", "trailing comma", withBody(`{"id":1,"name":"Fern",}`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-scheme-alias", "Token", withAuth(func(tok string) string { return "Token " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-scheme-alias", "JWT", withAuth(func(tok string) string { return "JWT " + tok }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"jwt-scheme", "JWT", withAuth(func(tok string) string { return "JWT " + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"jwt-scheme", "Basic", withAuth(func(tok string) string { return "Basic " + tok }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"bearer-prefix-slice-7", "tab", withAuth(func(tok string) string { return "Bearer\t" + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"bearer-prefix-slice-7", "Digest", withAuth(func(tok string) string { return "Digest " + tok }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"token-split-whitespace", "tab", withAuth(func(tok string) string { return "Bearer\t" + tok }), statuses(http.StatusBadRequest, http.StatusOK)},
		{"token-split-whitespace", "space and more", withAuth(func(tok string) string { return "Bearer " + tok + " x" }), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"httpbearer-403", "no header", withAuth(func(string) string { return "" }), statuses(http.StatusBadRequest, http.StatusForbidden)},
		{"httpbearer-403", "Basic", withAuth(func(tok string) string { return "Basic " + tok }), statuses(http.StatusBadRequest, http.StatusForbidden)},
		{"httpbearer-403", "a wrong token", withAuth(func(string) string { return "Bearer not-the-token" }), func(t *testing.T, r, m answer) {
			if !reflect.DeepEqual(r, m) {
				t.Errorf("mutant answers %d %q, reference %d %q", m.status, m.body, r.status, r.body)
			}
		}},
		{"text-plain-as-json", "text/plain", request{contentType: "text/plain", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusOK)},
		{"text-plain-as-json", "text/json", request{contentType: "text/json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"media-type-json-suffix", "json-patch", request{contentType: "application/json-patch+json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusOK)},
		{"media-type-json-suffix", "x-json", request{contentType: "application/x-json", body: plant("Fern", "green")}, statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"accept-urlencoded", "urlencoded", request{contentType: "application/x-www-form-urlencoded", body: "id=1&name=Fern"}, all(statuses(http.StatusBadRequest, http.StatusOK), mutantHas("name", "Fern"))},
		{"accept-urlencoded", "multipart", request{contentType: "multipart/form-data; boundary=b", body: "--b\r\nContent-Disposition: form-data; name=\"id\"\r\n\r\n1\r\n--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nFern\r\n--b--\r\n"},
			statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"status-422-validation", "no name", withBody(`{"id":1}`), statuses(http.StatusBadRequest, http.StatusUnprocessableEntity)},
		{"status-422-validation", "malformed", withBody(`{"id":1,`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"nil-body-500", "null", withBody(`null`), statuses(http.StatusBadRequest, http.StatusInternalServerError)},
		{"nil-body-500", "a string", withBody(`"Fern"`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
		{"json-error-page", "malformed", withBody(`{"id":1,`), all(statuses(http.StatusBadRequest, http.StatusBadRequest), func(t *testing.T, _, m answer) {
			if !strings.HasPrefix(m.contentType, "text/html") {
				t.Errorf("mutant's refusal is %s, want text/html", m.contentType)
			}
		})},
		{"json-error-page", "a number", withBody(`42`), func(t *testing.T, _, m answer) {
			if !strings.HasPrefix(m.contentType, "text/html") {
				t.Errorf("mutant's refusal is %s, want text/html", m.contentType)
			}
		}},
		{"json-error-page", "an array, an Error record", withBody(`[1]`), func(t *testing.T, r, m answer) {
			if !reflect.DeepEqual(r, m) {
				t.Errorf("mutant answers %d %s %q, reference %d %s %q", m.status, m.contentType, m.body, r.status, r.contentType, r.body)
			}
		}},
		{"json-error-page", "empty, an Error record", withBody(``), func(t *testing.T, r, m answer) {
			if !reflect.DeepEqual(r, m) {
				t.Errorf("mutant answers %d %s %q, reference %d %s %q", m.status, m.contentType, m.body, r.status, r.contentType, r.body)
			}
		}},
		{"error-content-type-sniffed", "no name", withBody(`{"id":1}`), func(t *testing.T, r, m answer) {
			if r.contentType != "application/json" || m.contentType != "text/plain; charset=utf-8" || !bytes.Equal(r.body, m.body) {
				t.Errorf("reference %s %q, mutant %s %q; want application/json, then text/plain; charset=utf-8, one body", r.contentType, r.body, m.contentType, m.body)
			}
		}},

		// onJSONRequest, which older mutants share, changes only what its
		// mutant is about: data after the object stays refused.
		{"accept-missing-id", "no id", withBody(`{"name":"Fern"}`), statuses(http.StatusBadRequest, http.StatusOK)},
		{"accept-missing-id", "trailing data", withBody(`{"name":"Fern"}x`), statuses(http.StatusBadRequest, http.StatusBadRequest)},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.mutant] = true
		t.Run(tt.mutant+"/"+tt.name, func(t *testing.T) {
			m, ok := Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			token := tokenFor(m)
			ref := send(t, serve(t, nil, token), token, tt.rq)
			mut := send(t, serve(t, &m, token), token, tt.rq)
			tt.check(t, ref, mut)
		})
	}
	for _, name := range newMutants {
		if !seen[name] {
			t.Errorf("mutant %s has no row", name)
		}
	}
}

func tokenFor(m Mutant) string {
	if m.LongToken {
		return longToken
	}
	return shortToken
}

// TestOrdinaryTraffic: an ordinary valid create, with the right token, is
// answered by each new mutant exactly as by the reference.
func TestOrdinaryTraffic(t *testing.T) {
	if len(newMutants) < 26 {
		t.Errorf("%d new mutants, want at least 26", len(newMutants))
	}
	for _, name := range newMutants {
		t.Run(name, func(t *testing.T) {
			m, ok := Lookup(name)
			if !ok {
				t.Fatalf("no mutant %s", name)
			}
			token := tokenFor(m)
			refSrv, mutSrv := serve(t, nil, token), serve(t, &m, token)
			for i, body := range []string{`{"id":%d,"name":"Fern","tag":"green"}`, `{"id":%d,"name":"Fern"}`} {
				rq := request{body: fmt.Sprintf(body, 1000+i)}
				ref, mut := send(t, refSrv, token, rq), send(t, mutSrv, token, rq)
				if ref.status != http.StatusOK {
					t.Fatalf("reference answers %d: %s", ref.status, ref.body)
				}
				if !reflect.DeepEqual(mut, ref) {
					t.Errorf("%s: mutant answers %d %s %q, reference %d %s %q", rq.body,
						mut.status, mut.contentType, mut.body, ref.status, ref.contentType, ref.body)
				}
			}
		})
	}
}

// TestLongTokenNeeded: token-bcrypt-72 is the reference for tokens shorter
// than 72 bytes, which is why the self-test gives it a long one.
func TestLongTokenNeeded(t *testing.T) {
	m, _ := Lookup("token-bcrypt-72")
	if !m.LongToken {
		t.Fatal("token-bcrypt-72 is not marked LongToken")
	}
	srv := serve(t, &m, shortToken)
	rq := request{auth: func(tok string) string { return "Bearer " + tok[:len(tok)-1] + "X" }, body: `{"id":1,"name":"Fern"}`}
	if got := send(t, srv, shortToken, rq); got.status != http.StatusBadRequest {
		t.Errorf("a near miss of a short token is answered %d: %s", got.status, got.body)
	}
}

// TestCatalog: every mutant has a unique name, a defect, an origin and at
// least one rule, each in the catalog. A name is lower-case words joined
// by hyphens: the self-test's rerun lines write it as a bare shell word.
func TestCatalog(t *testing.T) {
	names := map[string]bool{}
	word := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, m := range All {
		if !word.MatchString(m.Name) || names[m.Name] {
			t.Errorf("mutant name %q is not lower-case words joined by hyphens, or not unique", m.Name)
		}
		names[m.Name] = true
		if m.Defect == "" || m.Origin == "" || m.Wrap == nil {
			t.Errorf("mutant %s lacks a defect, an origin or a Wrap", m.Name)
		}
		if strings.Contains(m.Origin, "\n") {
			t.Errorf("mutant %s: the origin is more than one line", m.Name)
		}
		if len(m.Rules) == 0 {
			t.Errorf("mutant %s names no rule", m.Name)
		}
		for _, id := range m.Rules {
			if _, ok := rules.Lookup(id); !ok {
				t.Errorf("mutant %s names rule %s, which is not in the catalog", m.Name, id)
			}
		}
	}
	for _, name := range newMutants {
		if !names[name] {
			t.Errorf("no mutant %s", name)
		}
	}
}

// TestRepeatedFields: the mutants of a singleton response field repeated
// send it twice on the wire, where the reference sends it once, and Go's
// client keeps both Content-Type fields (Header.Get shows only the first)
// and refuses two Content-Length fields of different values.
func TestRepeatedFields(t *testing.T) {
	tests := []struct {
		mutant, body string
		wantCT       []string
		wantErr      string // a part of the client's error; "" for none
	}{
		{"content-type-twice", `{"id":1,"name":"Fern"}`, []string{"application/json", "text/plain; charset=utf-8"}, ""},
		{"content-type-twice", `{"id":1}`, []string{"application/json", "text/plain; charset=utf-8"}, ""},
		{"content-type-same-twice", `{"id":1,"name":"Fern"}`, []string{"application/json", "application/json"}, ""},
		{"content-type-same-twice", `{"id":1}`, []string{"application/json"}, ""},
		{"content-length-twice", `{"id":1}`, nil, "multiple Content-Length"},
		{"content-length-twice", `{"id":1,"name":"Fern"}`, []string{"application/json"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.mutant+"/"+tt.body, func(t *testing.T) {
			m, ok := Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			for _, mutant := range []bool{false, true} {
				srv := serve(t, nil, shortToken)
				if mutant {
					srv = serve(t, &m, shortToken)
				}
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/plants", strings.NewReader(tt.body))
				req.Header.Set("Authorization", "Bearer "+shortToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := srv.Client().Do(req)
				switch {
				case !mutant && err != nil:
					t.Fatalf("reference: %v", err)
				case !mutant:
					if got := resp.Header.Values("Content-Type"); !reflect.DeepEqual(got, []string{"application/json"}) {
						t.Errorf("reference sends Content-Type %q", got)
					}
				case tt.wantErr != "":
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Errorf("mutant: error %v, want one saying %q", err, tt.wantErr)
					}
				case err != nil:
					t.Fatalf("mutant: %v", err)
				default:
					if got := resp.Header.Values("Content-Type"); !reflect.DeepEqual(got, tt.wantCT) {
						t.Errorf("mutant sends Content-Type %q, want %q", got, tt.wantCT)
					}
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
		})
	}
}
