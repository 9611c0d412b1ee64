package judge

import (
	"net/http"
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestBodyDefects: a refused body counts toward the rule the suite names
// for what it breaks; what RFC 8259 leaves to the reader toward none.
func TestBodyDefects(t *testing.T) {
	cases := []struct {
		body string
		want []rules.RuleID
		open bool
	}{
		{``, []rules.RuleID{rules.BodyJSON}, false},
		{"  \r\n", []rules.RuleID{rules.BodyJSON}, false},
		{`{"id":1,"name":"a"}x`, []rules.RuleID{rules.BodyJSON}, false},
		{`{'id':1}`, []rules.RuleID{rules.BodyJSON}, false},
		{`"plant"`, []rules.RuleID{rules.BodyObject}, false},
		{`null`, []rules.RuleID{rules.BodyObject}, false},
		{`{"name":"a"}`, []rules.RuleID{rules.BodyIDRequired}, false},
		{`{"ID":1,"Name":"a"}`, []rules.RuleID{rules.BodyIDRequired, rules.BodyNameRequired}, false},
		{`{"id":true,"name":"a"}`, []rules.RuleID{rules.BodyIDInteger}, false},
		{`{"id":1.5,"name":"a"}`, []rules.RuleID{rules.BodyIDInteger}, false},
		{`{"id":9007199254740993.5,"name":"a"}`, []rules.RuleID{rules.BodyIDInteger}, false},
		{`{"id":1e-500,"name":"a"}`, []rules.RuleID{rules.BodyIDInteger}, false},
		{`{"id":-9223372036854775809,"name":"a"}`, []rules.RuleID{rules.BodyIDInt64}, false},
		{`{"id":1e400,"name":"a"}`, []rules.RuleID{rules.BodyIDInt64}, false},
		{`{"id":1,"name":7}`, []rules.RuleID{rules.BodyNameString}, false},
		{`{"id":1,"name":"a","tag":null}`, []rules.RuleID{rules.BodyTagString}, false},
		{`{"id":1,"name":"a","id":2}`, nil, true},
		{"{\"id\":1,\"name\":\"\xff\"}", nil, true},
		{"\xef\xbb\xbf{\"id\":1,\"name\":\"a\"}", nil, true},
		{`{"id":2.0,"name":"a"}`, nil, false},
	}
	for _, tc := range cases {
		ds, open := BodyDefects([]byte(tc.body))
		var got []rules.RuleID
		for _, d := range ds {
			got = append(got, d.Rule)
		}
		if !slices.Equal(got, tc.want) || (open != "") != tc.open {
			t.Errorf("BodyDefects(%q) = %v, open %q; want %v, open %v", tc.body, got, open, tc.want, tc.open)
		}
	}
}

// TestAuthDefect: the bearer check is the document's (spec.CheckBearer),
// each of its errors mapped to its rule.
func TestAuthDefect(t *testing.T) {
	for _, tc := range []struct {
		name string
		auth []string
		want rules.RuleID // "" for none
	}{
		{"none", nil, rules.AuthMissing},
		{"empty", []string{""}, rules.AuthMissing},
		{"basic", []string{"Basic dXNlcjpwYXNz"}, rules.AuthScheme},
		{"no scheme", []string{"tok"}, rules.AuthScheme},
		{"no space", []string{"Bearertok"}, rules.AuthScheme},
		{"empty credential", []string{"Bearer "}, rules.AuthEmpty},
		{"blank credential", []string{"Bearer   "}, rules.AuthEmpty},
		{"bearer alone", []string{"Bearer"}, rules.AuthEmpty},
		{"lower-case scheme", []string{"bearer tok"}, ""},
		{"a credential", []string{"Bearer tok"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.auth != nil {
				h["Authorization"] = tc.auth
			}
			d, bad := AuthDefect(h)
			if got := d.Rule; got != tc.want || bad != (tc.want != "") {
				t.Errorf("AuthDefect(%q) = %q, %v; want %q", tc.auth, got, bad, tc.want)
			}
		})
	}
}

// TestClassify: a media or body defect counts only for a request the
// document refuses, an auth defect for any not known valid, and a refusal
// the catalog names no rule for counts toward GEN-INVALID.
func TestClassify(t *testing.T) {
	good := http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name         string
		h            http.Header
		body         string
		known, valid bool
		want         []rules.RuleID
	}{
		{"valid", good, `{"id":1,"name":"a"}`, true, true, nil},
		{"valid, body not known", good, `{"id":1,"name":"a"}`, false, false, nil},
		{"no token, body not known", http.Header{}, ``, false, false, []rules.RuleID{rules.AuthMissing}},
		{"no token, media and body", http.Header{"Content-Type": {"text/plain"}}, `{}`, true, false,
			[]rules.RuleID{rules.AuthMissing, rules.MediaRequest, rules.BodyIDRequired, rules.BodyNameRequired}},
		{"a refusal the catalog has no rule for", good, `{"id":1,"name":"a"}`, true, false, []rules.RuleID{rules.GenInvalid}},
		{"what RFC 8259 leaves open", good, `{"id":1,"name":"a","id":1}`, true, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []rules.RuleID
			for _, d := range Classify(tc.h, []byte(tc.body), tc.known, tc.valid, "why").Defects {
				got = append(got, d.Rule)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Classify = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestNearMiss: a credential near the issued token, as a check that
// compares too little or normalises first would take it, is a near miss;
// another token is not.
func TestNearMiss(t *testing.T) {
	const issued = "Zm9v-YmFy_YmF6"
	tests := []struct {
		cred string
		want bool
	}{
		{"Zm9v-YmFy_YmF6x", true},
		{"zM9V-yMfY_yMf6", true},
		{"Zm9v-YmFy_YmF7", true},
		{"Zm9v-YmFy_YmF6=", true},
		{"Zm9v+YmFy/YmF6", true},
		{"%5Am9v-YmFy_YmF6", true},
		{"Zm9v-Ym Fy_YmF6", true},
		{"Ｚm9v-YmFy_YmF6", true},
		{"Ｚｍ９ｖ-YmFy_YmF6", true},
		{"another-token-entirely", false},
		{"Zm9v-YmFy_Ym77", false},
	}
	for _, tc := range tests {
		if got := nearMiss(tc.cred, issued); got != tc.want {
			t.Errorf("nearMiss(%q) = %v, want %v", tc.cred, got, tc.want)
		}
	}
}
