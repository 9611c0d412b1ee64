package judge

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestJudge: an exchange in, results per rule out; each case names the
// rules that must fail and one that must pass.
func TestJudge(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	js := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name         string
		h            http.Header
		req          string
		status       int
		resp         string
		failed       []rules.RuleID
		passed       rules.RuleID
		client       bool
		respNotWhole bool
	}{
		{"an honest create", good, `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern"}`, nil, rules.CreateNoTag, false, false},
		{"a name changed", good, `{"id":1,"name":"Fern"}`, 200, `{"name":"FERN"}`, []rules.RuleID{rules.CreateName}, rules.CreateNoTag, false, false},
		{"an id echoed", good, `{"id":1,"name":"Fern"}`, 200, `{"id":1,"name":"Fern"}`, []rules.RuleID{rules.CreateNoID}, rules.CreateName, false, false},
		{"no token, accepted", http.Header{"Content-Type": {"application/json"}}, `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern"}`, []rules.RuleID{rules.AuthMissing}, rules.ResponseMedia, true, false},
		{"an id not an integer, refused", good, `{"id":"x","name":"Fern"}`, 400, `{"error":1,"message":"m"}`, nil, rules.BodyIDInteger, true, false},
		{"refused without an Error record", good, `{"id":"x","name":"Fern"}`, 400, `{"message":"m"}`, []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented}, rules.BodyIDInteger, true, false},
		{"an answer not read whole", good, `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern"}`, nil, rules.ResponseMedia, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &exchange.Exchange{Header: tc.h, Body: []byte(tc.req), Status: tc.status, RespHeader: js, RespBody: []byte(tc.resp)}
			if tc.respNotWhole {
				x.RespIncomplete = "cut"
			}
			o := Judge(v, x, Sender{}, nil)
			got := map[rules.RuleID]bool{}
			for _, r := range o.Results {
				got[r.Rule] = r.OK()
			}
			for _, id := range tc.failed {
				if ok, judged := got[id]; !judged || ok {
					t.Errorf("%s: judged %v, passed %v; want failed (%v)", id, judged, ok, o.Results)
				}
			}
			if ok, judged := got[tc.passed]; !judged || !ok {
				t.Errorf("%s: judged %v, passed %v; want passed (%v)", tc.passed, judged, ok, o.Results)
			}
			if o.Client != tc.client {
				t.Errorf("client = %v, want %v", o.Client, tc.client)
			}
			if _, judged := got[rules.ResponseDocumented]; judged == tc.respNotWhole {
				t.Errorf("RESPONSE-DOCUMENTED judged %v on an answer read whole: %v", judged, !tc.respNotWhole)
			}
		})
	}
}

// TestCreate200: the judge reads CREATE-200's Plant record in the answer
// to an accepted create (a valid request answered 200), and only there:
// a refusal of a valid create, or a 200 to an invalid one, is not
// CREATE-200's to judge from the exchange alone.
func TestCreate200(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	valid := `{"id":1,"name":"Fern","tag":"fern"}`
	for _, tc := range []struct {
		name         string
		h            http.Header
		req          string
		status       int
		resp         string
		respNotWhole bool
		judged       bool
		actual       string // "" when passed
	}{
		{"a Plant record", good, valid, 200, `{"name":"Fern","tag":"fern"}`, false, true, ""},
		{"an empty body", good, valid, 200, ``, false, true, NotAnObject},
		{"an array", good, valid, 200, `[{"name":"Fern"}]`, false, true, NotAnObject},
		{"a name that is a number", good, valid, 200, `{"name":7}`, false, true, "name is the JSON value"},
		{"a tag that is an object", good, valid, 200, `{"name":"Fern","tag":{}}`, false, true, "tag is the JSON value"},
		{"a valid create refused", good, valid, 400, `{"error":1,"message":"m"}`, false, false, ""},
		{"a valid create answered 500", good, valid, 500, `{"name":"Fern"}`, false, false, ""},
		{"an invalid create accepted", good, `{"id":"x","name":"Fern"}`, 200, `[]`, false, false, ""},
		{"no token, accepted", http.Header{"Content-Type": {"application/json"}}, valid, 200, `[]`, false, false, ""},
		{"an answer not read whole", good, valid, 200, `[]`, true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &exchange.Exchange{Header: tc.h, Body: []byte(tc.req), Status: tc.status,
				RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(tc.resp)}
			if tc.respNotWhole {
				x.RespIncomplete = "response body not read to its end"
			}
			var got *Result
			for _, r := range Judge(v, x, Sender{}, nil).Results {
				if r.Rule == rules.Create200 {
					got = &r
				}
			}
			if (got != nil) != tc.judged {
				t.Fatalf("CREATE-200 judged %v, want %v", got != nil, tc.judged)
			}
			if got == nil {
				return
			}
			if got.OK() != (tc.actual == "") || !strings.HasPrefix(got.Actual, tc.actual) {
				t.Errorf("CREATE-200: passed %v, actual %q; want actual %q", got.OK(), got.Actual, tc.actual)
			}
		})
	}
}

// TestHeaderSize: a refusal of a valid request for a long header is the
// infrastructure's, judged at HEADER-SIZE (a SHOULD) and by no MUST rule of
// the answer; a 200 to it, a refusal of an invalid one, and any answer to a
// request whose header is not long are judged as every other.
func TestHeaderSize(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	long := func(h http.Header) http.Header {
		h = h.Clone()
		h.Set("X-Plantcheck-Padding", strings.Repeat("x", LongHeaderBytes))
		return h
	}
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	longToken := http.Header{"Authorization": {"Bearer " + strings.Repeat("t", 4096)}, "Content-Type": {"application/json"}}
	const plant, refusal, html = `{"id":1,"name":"Fern"}`, `{"error":1,"message":"m"}`, "<html>too large</html>"
	for _, tc := range []struct {
		name     string
		h        http.Header
		req      string
		status   int
		ct, resp string
		want     map[rules.RuleID]bool // judged, and passed or not
		unjudged []rules.RuleID
	}{
		{"431 to a long header", long(good), plant, 431, "text/plain", "too large",
			map[rules.RuleID]bool{rules.HeaderSize: false}, []rules.RuleID{rules.ResponseDocumented, rules.ResponseMedia}},
		{"400 and a page to a long header", long(good), plant, 400, "text/html", html,
			map[rules.RuleID]bool{rules.HeaderSize: false}, []rules.RuleID{rules.ResponseDocumented, rules.ErrorRecord}},
		{"400 and an Error record to a long header", long(good), plant, 400, "application/json", refusal,
			map[rules.RuleID]bool{rules.HeaderSize: true}, []rules.RuleID{rules.ResponseDocumented}},
		{"200 to a long header, judged in full", long(good), plant, 200, "application/json", `{"name":"FERN"}`,
			map[rules.RuleID]bool{rules.HeaderSize: true, rules.ResponseDocumented: true, rules.CreateName: false}, nil},
		{"431 to a long header and a body refused", long(good), `{"id":"x","name":"Fern"}`, 431, "text/plain", "too large",
			map[rules.RuleID]bool{rules.ResponseDocumented: false, rules.BodyIDInteger: false}, []rules.RuleID{rules.HeaderSize}},
		{"431 to a long token: the client's own", longToken, plant, 431, "text/plain", "too large",
			map[rules.RuleID]bool{rules.ResponseDocumented: false}, []rules.RuleID{rules.HeaderSize}},
		{"431 to no long header", good, plant, 431, "text/plain", "too large",
			map[rules.RuleID]bool{rules.ResponseDocumented: false, rules.ResponseMedia: false}, []rules.RuleID{rules.HeaderSize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Judge(v, &exchange.Exchange{Header: tc.h, Body: []byte(tc.req), Status: tc.status,
				RespHeader: http.Header{"Content-Type": {tc.ct}}, RespBody: []byte(tc.resp)}, Sender{}, nil)
			got := map[rules.RuleID]bool{}
			for _, r := range o.Results {
				got[r.Rule] = r.OK()
			}
			for id, pass := range tc.want {
				if ok, judged := got[id]; !judged || ok != pass {
					t.Errorf("%s: judged %v, passed %v; want passed %v (%v)", id, judged, ok, pass, o.Results)
				}
			}
			for _, id := range tc.unjudged {
				if _, judged := got[id]; judged {
					t.Errorf("%s judged, want not: %v", id, o.Results)
				}
			}
		})
	}
}

// TestRepeatedSingletons: an answer with a singleton field repeated fails
// RESPONSE-MEDIA and RESPONSE-DOCUMENTED, whatever its first field says;
// the same answer with its first field alone (what Header.Get, and so the
// validator, reads) passes both: the check reads every field.
func TestRepeatedSingletons(t *testing.T) {
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name string
		resp http.Header
		fail []rules.RuleID
	}{
		{"a middleware's text/plain after application/json", http.Header{"Content-Type": {"application/json", "text/plain"}}, []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented}},
		{"application/json twice", http.Header{"Content-Type": {"application/json", "application/json"}}, []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented}},
		{"Content-Length twice, of one value", http.Header{"Content-Type": {"application/json"}, "Content-Length": {"15", "15"}}, []rules.RuleID{rules.ResponseDocumented}},
		{"once, with parameters", http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Content-Length": {"15"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judge := func(h http.Header) map[rules.RuleID]bool {
				o := Judge(v, &exchange.Exchange{Header: good, Body: []byte(`{"id":1,"name":"Fern"}`), Status: 200,
					RespHeader: h, RespBody: []byte(`{"name":"Fern"}`)}, Sender{}, nil)
				got := map[rules.RuleID]bool{}
				for _, r := range o.Results {
					got[r.Rule] = r.OK()
				}
				return got
			}
			got := judge(tc.resp)
			for _, id := range []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented} {
				want := !slices.Contains(tc.fail, id)
				if ok, judged := got[id]; !judged || ok != want {
					t.Errorf("%s: judged %v, passed %v; want passed %v", id, judged, ok, want)
				}
			}
			first := http.Header{}
			for k, vs := range tc.resp {
				first[k] = vs[:1]
			}
			for id, ok := range judge(first) {
				if !ok {
					t.Errorf("with its first fields alone, %s failed: the answer is wrong for another reason", id)
				}
			}
		})
	}
}

// TestNotAcceptable: a 406 to a valid request whose Accept admits no
// application/json is the service's to give (OPEN-ACCEPT-OTHER): no MUST
// rule of the answer judges it, whatever its body, with the sender's
// intent or without it (the proxy's, a recording's). A 406 to any other
// request, and any other answer to that one, are judged as every answer.
func TestNotAcceptable(t *testing.T) {
	t.Parallel()
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	accept := func(a string) http.Header {
		h := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
		if a != "" {
			h.Set("Accept", a)
		}
		return h
	}
	const plant = `{"id":1,"name":"Fern"}`
	issued := Sender{Intent: Intent{Issued: true, Accept: rules.OpenAcceptOther}}
	for _, tc := range []struct {
		name     string
		h        http.Header
		req      string
		status   int
		ct, resp string
		sender   Sender
		fail     []rules.RuleID
	}{
		{"406 and text to text/html", accept("text/html"), plant, 406, "text/plain", "Not Acceptable", Sender{}, nil},
		{"406 and text to text/html, in run", accept("text/html"), plant, 406, "text/plain", "Not Acceptable", issued, nil},
		{"406 and a page to JSON weighted 0", accept("*/*, application/json;q=0"), plant, 406, "text/html", "<p>no</p>", Sender{}, nil},
		{"400 and an Error record to text/html", accept("text/html"), plant, 400, "application/json", `{"error":1,"message":"m"}`, issued, nil},
		{"200 and the echo to text/html", accept("text/html"), plant, 200, "application/json", `{"name":"Fern"}`, issued, nil},
		{"200 and a wrong echo to text/html", accept("text/html"), plant, 200, "application/json", `{"name":"FERN"}`, issued, []rules.RuleID{rules.CreateName}},
		{"200 and a page to text/html", accept("text/html"), plant, 200, "text/html", "<p>Fern</p>", issued, []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented, rules.Create200, rules.CreateName}},
		{"500 to text/html", accept("text/html"), plant, 500, "application/json", `{"error":1,"message":"m"}`, issued, []rules.RuleID{rules.ResponseDocumented}},
		{"406 to no Accept", accept(""), plant, 406, "text/plain", "Not Acceptable", Sender{}, []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented}},
		{"406 to */*", accept("*/*"), plant, 406, "text/plain", "Not Acceptable", Sender{Intent: Intent{Issued: true}}, []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented, rules.Create200}},
		{"406 to text/html and no name", accept("text/html"), `{"id":1}`, 406, "text/plain", "Not Acceptable", Sender{}, []rules.RuleID{rules.BodyNameRequired, rules.ResponseMedia, rules.ResponseDocumented}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Judge(v, &exchange.Exchange{Header: tc.h, Body: []byte(tc.req), Status: tc.status,
				RespHeader: http.Header{"Content-Type": {tc.ct}}, RespBody: []byte(tc.resp)}, tc.sender, nil)
			var failed []rules.RuleID
			for _, r := range o.Results {
				if !r.OK() && !slices.Contains(failed, r.Rule) {
					failed = append(failed, r.Rule)
				}
			}
			slices.Sort(failed)
			want := slices.Sorted(slices.Values(tc.fail))
			if !slices.Equal(failed, want) {
				t.Errorf("failed %v, want %v (%v)", failed, want, o.Results)
			}
		})
	}
}

// TestResponseJSONText: an answer whose JSON text comes after a byte order
// mark, in UTF-8 or UTF-16, fails RESPONSE-JSON-TEXT, whatever its status;
// the same text without the mark, or with U+FEFF inside a string, passes;
// an empty body is not judged by it.
func TestResponseJSONText(t *testing.T) {
	t.Parallel()
	v, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name, req string
		status    int
		resp      string
		judged    bool
		want      string // "" passes; else a part of what came back
	}{
		{"a Plant record", `{"id":1,"name":"Fern"}`, 200, `{"name":"Fern"}`, true, ""},
		{"U+FEFF inside the name", `{"id":1,"name":"\ufeffFern"}`, 200, "{\"name\":\"\xef\xbb\xbfFern\"}", true, ""},
		{"a Plant record after the UTF-8 mark", `{"id":1,"name":"Fern"}`, 200, "\xef\xbb\xbf{\"name\":\"Fern\"}", true, "EF BB BF"},
		{"an Error record after the UTF-8 mark", `{"id":"x","name":"Fern"}`, 400, "\xef\xbb\xbf{\"error\":1,\"message\":\"m\"}", true, "EF BB BF"},
		{"UTF-16 big-endian with its mark", `{"id":1,"name":"Fern"}`, 200, "\xfe\xff\x00{\x00}", true, "FE FF"},
		{"UTF-16 little-endian with its mark", `{"id":1,"name":"Fern"}`, 200, "\xff\xfe{\x00}\x00", true, "FF FE"},
		{"an empty body", `{"id":1,"name":"Fern"}`, 200, ``, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &exchange.Exchange{Header: good, Body: []byte(tc.req), Status: tc.status,
				RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(tc.resp)}
			var got *Result
			for _, r := range Judge(v, x, Sender{}, nil).Results {
				if r.Rule == rules.ResponseJSONText {
					got = &r
				}
			}
			if (got != nil) != tc.judged {
				t.Fatalf("judged %v, want %v", got != nil, tc.judged)
			}
			if got == nil {
				return
			}
			if tc.want == "" && !got.OK() || tc.want != "" && !strings.Contains(got.Actual, tc.want) {
				t.Errorf("actual %q, want %q", got.Actual, tc.want)
			}
		})
	}
}
