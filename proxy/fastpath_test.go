package proxy

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/judge"
	"github.com/plantcheck/plantcheck/spec"
)

// fastJudge is the fast path of the embedded document and the validator it
// stands in for.
func fastJudge(t testing.TB) (*fastPath, *spec.Validator) {
	t.Helper()
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	return newFastPath(v), v
}

var (
	goodHeader = http.Header{"Authorization": {"Bearer a-token"}, "Content-Type": {"application/json"}}
	jsonHeader = http.Header{"Content-Type": {"application/json"}}
)

// agrees checks the fast path's verdicts on one exchange against the
// validator's and check.Echo's: whatever the fast path passes, they pass.
// It returns what the fast path passed.
func agrees(t *testing.T, fp *fastPath, v *spec.Validator, reqBody []byte, status int, respBody []byte) (req, resp, echo bool) {
	t.Helper()
	var sent, answer flat
	req = fp.requestPasses(reqBody, &sent)
	if req {
		if !v.BodyConforms(opMethod, opPath, reqBody) {
			t.Errorf("the fast path passes the request %q, BodyConforms does not", reqBody)
		}
		if vs := v.CheckRequest(spec.Request{Method: opMethod, Path: opPath, Header: goodHeader, Body: reqBody}); len(vs) > 0 {
			t.Errorf("the fast path passes the request %q, the validator says %v", reqBody, vs)
		}
	}
	resp = fp.responsePasses(status, jsonHeader, respBody, &answer)
	if resp {
		sreq := spec.Request{Method: opMethod, Path: opPath, Header: goodHeader, Body: reqBody}
		if vs := v.CheckResponse(sreq, spec.Response{Status: status, Header: jsonHeader, Body: respBody}); len(vs) > 0 {
			t.Errorf("the fast path passes the answer %d %q, the validator says %v", status, respBody, vs)
		}
	}
	if req && resp && echoPasses(&sent, &answer) {
		echo = true
		s := check.ReadSent(reqBody)
		fails := check.Echo(s, respBody, nil)
		for _, rule := range judge.EchoRules(s.HasTag) {
			for _, f := range fails {
				if f.Rule == rule {
					t.Errorf("the fast path passes the echo of %q in %q, check.Echo fails %s: %s", reqBody, respBody, rule, f.Actual)
				}
			}
		}
		if !s.HasName || s.Unjudged != "" {
			t.Errorf("the fast path passes the echo of %q, which check.ReadSent cannot judge", reqBody)
		}
	}
	return req, resp, echo
}

// TestFastPath: the common exchanges take the fast path, whatever the
// spelling of their JSON; whatever is in doubt goes to the validator; and
// every pass of the fast path is a pass of the validator and check.Echo.
func TestFastPath(t *testing.T) {
	fp, v := fastJudge(t)
	cases := []struct {
		name           string
		req            string
		status         int
		resp           string
		fastReq, fastR bool // the fast path passes the request, the answer
		fastEcho       bool // and the echo
	}{
		{"a create and its echo", `{"id":1,"name":"Fern","tag":"green"}`, 200, `{"name":"Fern","tag":"green"}`, true, true, true},
		{"no tag", `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern"}`, true, true, true},
		{"members in another order, white space", " {\r\n\t\"name\" : \"Fern\" ,\"id\":-0 } ", 200, `{ "name":"Fern" }`, true, true, true},
		{"int64 bounds", `{"id":-9223372036854775808,"name":""}`, 200, `{"name":""}`, true, true, true},
		{"the largest id", `{"id":9223372036854775807,"name":"x"}`, 200, `{"name":"x"}`, true, true, true},
		{"an extra member", `{"id":1,"name":"Fern","extra":7}`, 200, `{"name":"Fern","extra":"x"}`, true, true, true},
		{"names not ASCII", `{"id":1,"name":"Фикус 🌿"}`, 200, `{"name":"Фикус 🌿"}`, true, true, true},
		{"an Error record", `{"id":1}`, 400, `{"error":3,"message":"no name"}`, false, true, false},
		{"the int32 bound of an Error record", `{}`, 400, `{"error":2147483647,"message":""}`, false, true, false},

		{"a name changed", `{"id":1,"name":"Fern"}`, 200, `{"name":"FERN"}`, true, true, false},
		{"a tag dropped", `{"id":1,"name":"Fern","tag":"g"}`, 200, `{"name":"Fern"}`, true, true, false},
		{"a tag invented", `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern","tag":"g"}`, true, true, false},
		{"an id echoed", `{"id":1,"name":"Fern"}`, 200, `{"id":1,"name":"Fern"}`, true, true, true},

		{"an escape", `{"id":1,"name":"F\u00e9rn"}`, 200, `{"name":"F\u00e9rn"}`, false, false, false},
		{"an escaped quote", `{"id":1,"name":"\""}`, 200, `{"name":"\""}`, false, false, false},
		{"an id with a fraction", `{"id":1.0,"name":"Fern"}`, 200, `{"name":"Fern","n":1.5}`, false, false, false},
		{"an exponent", `{"id":1e2,"name":"Fern"}`, 200, `{"name":"Fern","n":1E2}`, false, false, false},
		{"an id past int64", `{"id":9223372036854775808,"name":"Fern"}`, 200, `{"name":"Fern","n":-9223372036854775809}`, false, false, false},
		{"a leading zero", `{"id":01,"name":"Fern"}`, 200, `{"name":"Fern","n":01}`, false, false, false},
		{"a key twice", `{"id":1,"name":"Fern","name":"Ivy"}`, 200, `{"name":"Fern","name":"Fern"}`, false, false, false},
		{"a nested value", `{"id":1,"name":"Fern","x":{}}`, 200, `{"name":"Fern","x":[1]}`, false, false, false},
		{"null, true", `{"id":1,"name":"Fern","tag":null}`, 200, `{"name":"Fern","tag":true}`, false, false, false},
		{"a byte order mark", "\xef\xbb\xbf{\"id\":1,\"name\":\"Fern\"}", 200, "\xef\xbb\xbf{\"name\":\"Fern\"}", false, false, false},
		{"bytes that are not UTF-8", "{\"id\":1,\"name\":\"F\xffrn\"}", 200, "{\"name\":\"F\xffrn\"}", false, false, false},
		{"a control character", "{\"id\":1,\"name\":\"F\trn\"}", 200, "{\"name\":\"F\trn\"}", false, false, false},
		{"trailing bytes", `{"id":1,"name":"Fern"}x`, 200, `{"name":"Fern"} {}`, false, false, false},
		{"cut short", `{"id":1,"name":"Fern"`, 200, `{"name":"Fern",}`, false, false, false},
		{"no id; a name not a string", `{"name":"Fern"}`, 200, `{"name":7}`, false, false, false},
		{"an id not an integer", `{"id":"1","name":"Fern"}`, 200, `{"tag":"x"}`, false, false, false},
		{"not an object", `[{"id":1,"name":"Fern"}]`, 200, `"Fern"`, false, false, false},
		{"empty", ``, 200, ``, false, false, false},
		{"an empty object", `{}`, 200, `{}`, false, false, false},
		{"too many members", `{"id":1,"name":"F","a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1}`, 200, `{"name":"F","a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1}`, false, false, false},
		{"an undocumented status", `{"id":1,"name":"Fern"}`, 201, `{"name":"Fern"}`, true, false, false},
		{"an Error record's code past int32", `{}`, 400, `{"error":2147483648,"message":"x"}`, false, false, false},
		{"an Error record without a message", `{}`, 400, `{"error":1}`, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, resp, echo := agrees(t, fp, v, []byte(tc.req), tc.status, []byte(tc.resp))
			if req != tc.fastReq || resp != tc.fastR || echo != tc.fastEcho {
				t.Errorf("the fast path passes the request %v, the answer %v, the echo %v; want %v, %v, %v",
					req, resp, echo, tc.fastReq, tc.fastR, tc.fastEcho)
			}
		})
	}
	var f flat
	for _, h := range []http.Header{
		{"Content-Type": {"application/json; charset=utf-8"}},
		{"Content-Type": {"Application/JSON"}},
		{"Content-Type": {"application/json", "application/json"}},
		{},
	} {
		if fp.responsePasses(200, h, []byte(`{"name":"Fern"}`), &f) {
			t.Errorf("the fast path passes an answer with the header %v; want the validator to judge it", h)
		}
	}
}

// TestFastPathStandsAside: a document the fast path cannot read as a
// whole (here a name with a minimum length, a keyword it does not know)
// turns it off for that schema, and the validator judges every such
// exchange: a name too short is still the client's violation.
func TestFastPathStandsAside(t *testing.T) {
	doc := string(spec.Document())
	const at = "        name:\n          type: string\n"
	if !strings.Contains(doc, at) {
		t.Fatalf("the document no longer spells the name's schema as %q; adjust the test", at)
	}
	v, err := spec.New([]byte(strings.Replace(doc, at, at+"          minLength: 5\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	fp := newFastPath(v)
	if fp.request != nil || fp.responses[200] != nil {
		t.Errorf("the fast path reads a schema with minLength; want it off for the request and the 200")
	}
	if fp.responses[400] == nil {
		t.Errorf("the fast path is off for the 400's schema, which it can read")
	}
	h, err := New(Config{Upstream: mustURL("http://127.0.0.1:1"), Validator: v})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":1,"name":"Ivy"}`)
	x := &exchange{
		method: opMethod, target: opPath, header: goodHeader,
		reqBody: snapshot{body: body, total: int64(len(body)), whole: true},
		status:  400, respHeader: jsonHeader,
		respBody: snapshot{body: []byte(`{"error":1,"message":"short"}`), whole: true},
	}
	if o := h.judge(x, nil); !o.client {
		t.Errorf("a name shorter than the document's minimum is not the client's violation")
	}
}

// FuzzFastPath: whatever the bodies, what the fast path passes, the
// validator and check.Echo pass. Its seeds run with the ordinary tests.
//
//	go test -run='^$' -fuzz=FuzzFastPath ./proxy/
func FuzzFastPath(f *testing.F) {
	for _, s := range [][2]string{
		{`{"id":1,"name":"Fern","tag":"green"}`, `{"name":"Fern","tag":"green"}`},
		{`{"id":-9223372036854775808,"name":""}`, `{"name":"","x":-1}`},
		{` {"name":"a b","id":0,"tag":""} `, `{"tag":"","name":"a b"}`},
		{`{"id":1,"name":"Fern","id":2}`, `{"name":"Fern"}`},
		{"{\"id\":1,\"name\":\"\xe2\x80\xae\"}", "{\"name\":\"\xe2\x80\xae\"}"},
	} {
		f.Add([]byte(s[0]), 200, []byte(s[1]))
	}
	f.Add([]byte(`{}`), 400, []byte(`{"error":-2147483648,"message":"m"}`))
	fp, v := fastJudge(f)
	f.Fuzz(func(t *testing.T, req []byte, status int, resp []byte) {
		if bytes.Count(req, []byte(":")) > 64 || bytes.Count(resp, []byte(":")) > 64 {
			return // the validator's time, not the fast path's, would grow
		}
		agrees(t, fp, v, req, status, resp)
	})
}
