package judge

import (
	"net/http"
	"testing"

	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/spec"
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
			o := Judge(v, Exchange{Header: tc.h, Body: []byte(tc.req), BodyWhole: true, Status: tc.status, RespHeader: js,
				RespBody: []byte(tc.resp), RespWhole: !tc.respNotWhole, RespWhy: "cut"}, nil)
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
