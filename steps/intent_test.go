package steps

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/generate"
	"github.com/plantcheck/plantcheck/internal/judge"
)

// TestTheSuiteChecksItsOwnRequests: a scenario whose request is not what it
// claims (a "valid" request the document refuses, an "invalid" one it
// accepts) is a defect of the suite, reported as such, whichever path the
// check takes (the body alone for the user's credentials and
// application/json, the whole request otherwise).
func TestTheSuiteChecksItsOwnRequests(t *testing.T) {
	const token = "intent-token"
	s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: token, Client: &http.Client{}, Validator: validator()})
	if err != nil {
		t.Fatal(err)
	}
	valid, invalid := `{"id":7,"name":"Fern"}`, `{"id":"7","name":"Fern"}`
	cases := []struct {
		name       string
		issued     bool
		authHeader string
		ct         string
		body       string
		want       int
		defect     bool
	}{
		{"valid request, 200 expected", true, "Bearer " + token, "application/json", valid, 200, false},
		{"invalid body, 400 expected", true, "Bearer " + token, "application/json", invalid, 400, false},
		{"invalid body, 200 expected", true, "Bearer " + token, "application/json", invalid, 200, true},
		{"valid request, 400 expected", true, "Bearer " + token, "application/json", valid, 400, true},
		{"id beyond int64, 200 expected", true, "Bearer " + token, "application/json", `{"id":9223372036854775808,"name":"F"}`, 200, true},
		{"another scheme, 400 expected", false, "Basic " + token, "application/json", valid, 400, false},
		{"another scheme, 200 expected", false, "Basic " + token, "application/json", valid, 200, true},
		{"no credential, 200 expected", false, "Bearer ", "application/json", valid, 200, true},
		{"a foreign token, 400 expected", false, "Bearer not-issued", "application/json", valid, 400, false},
		{"a foreign token, 200 expected", false, "Bearer not-issued", "application/json", valid, 200, true},
		{"a token near the issued one, 400 expected", false, "Bearer " + token + "x", "application/json", valid, 400, false},
		{"a token near the issued one, 200 expected", false, "Bearer " + token + "x", "application/json", valid, 200, true},
		{"bytes after the object, 400 expected", true, "Bearer " + token, "application/json", valid + "x", 400, false},
		{"bytes after the object, 200 expected", true, "Bearer " + token, "application/json", valid + "x", 200, true},
		{"text/plain, 400 expected", true, "Bearer " + token, "text/plain", valid, 400, false},
		{"text/plain, 200 expected", true, "Bearer " + token, "text/plain", valid, 200, true},
		{"json with charset, 200 expected", true, "Bearer " + token, "application/json; charset=utf-8", valid, 200, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{"Authorization": {c.authHeader}, "Content-Type": {c.ct}}
			for _, answered := range []bool{false, true} {
				x := &Sent{Exchange: exchange.Exchange{Method: http.MethodPost, Body: []byte(c.body), Header: h}, issued: c.issued, red: s.red}
				// As sendRequest keeps it: the one judge's outcome (an
				// answer, or none: Err), its findings on the request kept
				// for the steps.
				if answered {
					x.Status, x.RespHeader = c.want, http.Header{}
				} else {
					x.Err = io.ErrUnexpectedEOF
				}
				x.judged = judge.Judge(s.cfg.Validator, &x.Exchange, judge.Sender{Timeout: s.cfg.Client.Timeout, MaxBody: DefaultMaxBody}, s.Redact)
				x.Violations = x.judged.ResponseViolations
				s.scrub(x)
				err := s.checkIntent(&state{}, x, c.want)
				if got := errors.Is(err, ErrSuiteDefect); got != c.defect {
					t.Errorf("checkIntent (answered %v): defect = %v (%v), want %v", answered, got, err, c.defect)
				}
				// A request the document refuses, expected accepted: the
				// judge's own findings say why, the validator not run again.
				if answered && c.defect && c.want == http.StatusOK && c.issued {
					if len(x.judged.Violations) == 0 {
						t.Fatalf("the judge's findings on the request were not kept")
					}
					if why := x.judged.Violations[0].Message; err == nil || !strings.Contains(err.Error(), why) {
						t.Errorf("checkIntent: %v; want it to say why (%q)", err, why)
					}
				}
			}
		})
	}

	generated := []struct {
		kind   generate.Kind
		body   string
		defect bool
	}{
		{generate.Typical, valid, false},
		{generate.Boundary, `{"id":-9223372036854775808,"name":""}`, false},
		{generate.Invalid, invalid, false},
		{generate.Invalid, valid, true},
		{generate.Typical, invalid, true},
		{generate.Boundary, `{"id":-9223372036854775809,"name":""}`, true},
	}
	for _, g := range generated {
		err := s.checkCase(&generate.Case{Kind: g.kind, Class: "test", Raw: []byte(g.body)})
		if got := errors.Is(err, ErrSuiteDefect); got != g.defect {
			t.Errorf("checkCase(%s %s): defect = %v (%v), want %v", g.kind, g.body, got, err, g.defect)
		}
	}
}
