package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// sent is a request a test sends through the proxy.
type sent struct {
	path, body string
	auth       string // the Authorization value; "-" sends none
	ct         string // the Content-Type; "-" sends none
}

func (s sent) send(t *testing.T, base string) (*http.Response, []byte) {
	t.Helper()
	var h []string
	if s.auth != "-" {
		h = append(h, "Authorization", s.auth)
	}
	if s.ct != "-" {
		h = append(h, "Content-Type", s.ct)
	}
	path := s.path
	if path == "" {
		path = "/plants"
	}
	return post(t, base, path, s.body, h...)
}

const token = "judge-token-5b2f7c9e1a"

func valid(body string) sent {
	return sent{body: body, auth: "Bearer " + token, ct: "application/json"}
}

// withToken is s with another bearer token.
func (s sent) withToken(tok string) sent {
	s.auth = "Bearer " + tok
	return s
}

// acceptAll is a broken service: it answers every request 200 with a
// Plant record of the name and tag sent (or answer's, when given), as a
// service with no checks at all would.
func acceptAll(answer func(name, tag any, hasTag bool) map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in map[string]any
		json.Unmarshal(body, &in)
		tag, hasTag := in["tag"]
		out := map[string]any{"name": in["name"]}
		if hasTag {
			out["tag"] = tag
		}
		if answer != nil {
			out = answer(in["name"], tag, hasTag)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
}

// fixed is a broken service that answers every request alike.
func fixed(status int, contentType, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// mutant is the reference with one defect, from package mutants.
func mutant(t *testing.T, name string) http.Handler {
	t.Helper()
	m, ok := mutants.Lookup(name)
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return m.Wrap(ref, token)
}

// TestServerRules: each broken service is caught, from the traffic alone,
// under the rule it breaks, with exit status 1 (a SHOULD rule: 0, and 1
// with Strict).
func TestServerRules(t *testing.T) {
	fern := valid(`{"id":1,"name":"Fern","tag":"green"}`)
	moss := valid(`{"id":2,"name":"Moss"}`)
	cases := []struct {
		name     string
		upstream func(t *testing.T) http.Handler
		send     []sent
		want     []string // rules that must fail (others may too)
	}{
		{"the name changed", func(*testing.T) http.Handler {
			return acceptAll(func(_, tag any, _ bool) map[string]any { return map[string]any{"name": "Fern (renamed)", "tag": tag} })
		}, []sent{fern}, []string{"CREATE-NAME"}},
		{"the tag dropped", func(*testing.T) http.Handler {
			return acceptAll(func(name, _ any, _ bool) map[string]any { return map[string]any{"name": name} })
		}, []sent{fern}, []string{"CREATE-TAG"}},
		{"a tag invented", func(*testing.T) http.Handler {
			return acceptAll(func(name, _ any, _ bool) map[string]any { return map[string]any{"name": name, "tag": "default"} })
		}, []sent{moss}, []string{"CREATE-NO-TAG"}},
		{"200 without Authorization", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "-", ct: "application/json"}}, []string{"AUTH-MISSING"}},
		{"200 to the Basic scheme", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "Basic " + token, ct: "application/json"}}, []string{"AUTH-SCHEME"}},
		{"200 to a token without a scheme", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: token, ct: "application/json"}}, []string{"AUTH-SCHEME"}},
		{"200 to an empty bearer", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "Bearer ", ct: "application/json"}}, []string{"AUTH-EMPTY"}},
		{"200 to text/plain", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "Bearer " + token, ct: "text/plain"}}, []string{"MEDIA-REQUEST"}},
		{"200 to no media type", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "Bearer " + token, ct: "-"}}, []string{"MEDIA-REQUEST"}},
		{"200 to a body that is not JSON", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"id":3,"name":"Fern",}`), valid(``)}, []string{"BODY-JSON"}},
		{"200 to a body that is not an object", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`[{"id":3,"name":"Fern"}]`)}, []string{"BODY-OBJECT"}},
		{"200 to a body without an id", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"name":"Fern"}`)}, []string{"BODY-ID-REQUIRED"}},
		{"200 to a string id", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"id":"3","name":"Fern"}`), valid(`{"id":1.5,"name":"Fern"}`)}, []string{"BODY-ID-INTEGER"}},
		{"200 to an id past int64", func(t *testing.T) http.Handler { return mutant(t, "float64-id") },
			[]sent{valid(`{"id":9223372036854775808,"name":"Fern"}`)}, []string{"BODY-ID-INT64"}},
		{"200 to a body without a name", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"id":3}`)}, []string{"BODY-NAME-REQUIRED"}},
		{"200 to a name that is not a string", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"id":3,"name":null}`)}, []string{"BODY-NAME-STRING"}},
		{"200 to a tag that is not a string", func(*testing.T) http.Handler { return acceptAll(nil) },
			[]sent{valid(`{"id":3,"name":"Fern","tag":true}`)}, []string{"BODY-TAG-STRING"}},
		{"400 without an Error record", func(*testing.T) http.Handler { return fixed(400, "application/json", `{"message":"no"}`) },
			[]sent{moss}, []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"}},
		{"400 as plain text", func(t *testing.T) http.Handler { return mutant(t, "error-as-text") },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "-", ct: "application/json"}}, []string{"ERROR-RECORD", "RESPONSE-MEDIA"}},
		{"records as text/plain", func(*testing.T) http.Handler { return fixed(200, "text/plain", `{"name":"Moss"}`) },
			[]sent{moss}, []string{"RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"}},
		{"201 instead of 200", func(t *testing.T) http.Handler { return mutant(t, "status-201") },
			[]sent{moss}, []string{"RESPONSE-DOCUMENTED"}},
		{"401 to bad credentials", func(t *testing.T) http.Handler { return mutant(t, "auth-401") },
			[]sent{{body: `{"id":3,"name":"Fern"}`, auth: "-", ct: "application/json"}}, []string{"AUTH-MISSING", "RESPONSE-DOCUMENTED"}},
		{"the id echoed", func(t *testing.T) http.Handler { return mutant(t, "echo-id") },
			[]sent{moss}, []string{"CREATE-NO-ID"}},
		{"a second Content-Type after application/json", func(t *testing.T) http.Handler { return mutant(t, "content-type-twice") },
			[]sent{moss}, []string{"RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"}},
		{"application/json twice", func(t *testing.T) http.Handler { return mutant(t, "content-type-same-twice") },
			[]sent{moss}, []string{"RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, upstreamOf(t, tc.upstream(t)), nil)
			for _, s := range tc.send {
				s.send(t, p.url)
			}
			v := p.verdict(Options{})
			got := failedRules(v)
			for _, want := range tc.want {
				if !slices.Contains(got, want) {
					t.Errorf("failed rules %q, want %s among them\n%s", got, want, text(t, v))
				}
			}
			// The exit status follows the rules' levels, as the catalog
			// has them: only SHOULD rules failed, 0 (1 with Strict).
			should := true
			for _, id := range tc.want {
				if r, ok := rules.Lookup(rules.RuleID(id)); !ok || r.Level != rules.Should {
					should = false
				}
			}
			wantExit := 1
			if should {
				wantExit = 0
				if sv := p.h.Verdict(Options{Strict: true}); sv.ExitCode != 1 {
					t.Errorf("exit status with Strict = %d, want 1", sv.ExitCode)
				}
			}
			if v.ExitCode != wantExit {
				t.Errorf("exit status = %d, want %d\n%s", v.ExitCode, wantExit, text(t, v))
			}
			out := text(t, v)
			ev := kept(v, "server", tc.want[0])
			if len(ev) == 0 {
				t.Fatalf("%s failed with no evidence kept", tc.want[0])
			}
			f := ev[0]
			for _, want := range []string{f.Expected, f.Actual, "request:     POST /plants", "reproduce:   curl -sS -i -X POST"} {
				if !strings.Contains(out, want) {
					t.Errorf("the console lacks %q:\n%s", want, out)
				}
			}
			if !strings.HasPrefix(lastLine(out), "VERDICT: ") {
				t.Errorf("the last line is %q, want the verdict", lastLine(out))
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestReferenceUpstream: the reference, under traffic of every kind (valid
// creates, refused ones, requests outside the document), breaks no rule;
// the clients' requests that break the document are counted as theirs, by
// the rule their refusal exercises; they fail the verdict only with
// StrictClients.
func TestReferenceUpstream(t *testing.T) {
	base, tok := referenceUpstream(t)
	p := startProxy(t, base, nil)
	bearer := "Bearer " + tok
	sends := []struct {
		s      sent
		status int
	}{
		{sent{body: `{"id":11,"name":"Fern","tag":"green"}`, auth: bearer, ct: "application/json"}, 200},
		{sent{body: `{"name":"Moss","id":12}`, auth: bearer, ct: "application/json; charset=utf-8"}, 200},
		{sent{body: `{"id":9223372036854775806,"name":"Big"}`, auth: bearer, ct: "application/json"}, 200},
		{sent{body: `{"id":13,"name":"Fern"}`, auth: "-", ct: "application/json"}, 400},
		{sent{body: `{"id":13,"name":"Fern"}`, auth: "Basic " + tok, ct: "application/json"}, 400},
		{sent{body: `{"id":13,"name":"Fern"}`, auth: "Bearer ", ct: "application/json"}, 400},
		{sent{body: `{"id":13,"name":"Fern"}`, auth: "Bearer not-the-token", ct: "application/json"}, 400},
		{sent{body: `{"id":13,"name":"Fern"}`, auth: bearer, ct: "text/plain"}, 400},
		{sent{body: `{"id":13,"name":"Fern"`, auth: bearer, ct: "application/json"}, 400},
		{sent{body: `{"name":"Fern"}`, auth: bearer, ct: "application/json"}, 400},
		{sent{body: `{"id":9223372036854775808,"name":"Fern"}`, auth: bearer, ct: "application/json"}, 400},
		{sent{body: "\xef\xbb\xbf{\"id\":14,\"name\":\"Fern\"}", auth: bearer, ct: "application/json"}, 400},
		{sent{path: "/other", body: `{}`, auth: bearer, ct: "application/json"}, 404},
	}
	for _, x := range sends {
		if resp, body := x.s.send(t, p.url); resp.StatusCode != x.status {
			t.Errorf("%+v: status %d (%s), want %d", x.s, resp.StatusCode, body, x.status)
		}
	}
	v := p.verdict(Options{})
	out := text(t, v)
	if v.Counts.ServerViolations != 0 || v.ExitCode != 0 || !strings.HasPrefix(("VERDICT: "+v.Verdict), "VERDICT: NO VIOLATION SEEN") {
		t.Errorf("violations %d, exit %d, line %q; want none\n%s", v.Counts.ServerViolations, v.ExitCode, ("VERDICT: " + v.Verdict), out)
	}
	if got, want := v.Counts.Judged, int64(len(sends)-1); got != want {
		t.Errorf("judged %d, want %d", got, want)
	}
	if v.Counts.OutsideDocument != 1 {
		t.Errorf("outside %d, want 1", v.Counts.OutsideDocument)
	}
	// Each rule these requests exercise was judged and passed.
	for _, id := range []string{"RESPONSE-DOCUMENTED", "RESPONSE-MEDIA", "ERROR-RECORD", "CREATE-NAME", "CREATE-TAG", "CREATE-NO-TAG",
		"CREATE-NO-ID", "AUTH-MISSING", "AUTH-SCHEME", "AUTH-EMPTY", "MEDIA-REQUEST", "BODY-JSON", "BODY-ID-REQUIRED", "BODY-ID-INT64"} {
		if r := rule(t, v, id); r.Judged == 0 || r.Passed != r.Judged {
			t.Errorf("%s: judged %d, passed %d; want every one passed", id, r.Judged, r.Passed)
		}
	}
	// The clients' requests that break the document: all but the valid
	// three, the foreign token (the document cannot tell it) and the
	// request outside the document.
	if got, want := v.Counts.ClientViolations, int64(8); got != want {
		t.Errorf("client violations %d, want %d\n%s", got, want, out)
	}
	var groups []string
	for _, g := range v.Client {
		groups = append(groups, string(g.Rule))
	}
	for _, want := range []string{"AUTH-MISSING", "AUTH-SCHEME", "AUTH-EMPTY", "MEDIA-REQUEST", "BODY-JSON", "BODY-ID-REQUIRED", "BODY-ID-INT64", "OPEN-JSON-READER"} {
		if !slices.Contains(groups, want) {
			t.Errorf("client groups %q lack %s", groups, want)
		}
	}
	if sv := p.h.Verdict(Options{StrictClients: true}); sv.ExitCode != 1 || sv.Status != "clients failed" {
		t.Errorf("with StrictClients: exit %d, outcome %q; want 1, clients-failed", sv.ExitCode, sv.Status)
	}
	// What traffic cannot show is listed as not judged, never as passed.
	for id, why := range judge.NotFromTraffic {
		if r := rule(t, v, string(id)); r.NotJudgedBecause != why || r.Passed != 0 || r.Judged != 0 {
			t.Errorf("%s = %+v, want not judged: %s", id, r, why)
		}
	}
	if r := rule(t, v, "BODY-TAG-STRING"); r.NotJudgedBecause != whyNone {
		t.Errorf("BODY-TAG-STRING, which no exchange showed: %+v, want not judged: %s", r, whyNone)
	}
}
