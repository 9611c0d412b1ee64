package run

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// TestBrokenFramingIsAnAnswer: a service whose Error records carry two
// Content-Length fields of different values, which Go's client refuses to
// read every time, fails RESPONSE-DOCUMENTED (a broken answer), never
// RESPONSE-TIMELY (no answer), and the rules it left unjudged say why.
func TestBrokenFramingIsAnAnswer(t *testing.T) {
	t.Parallel()
	const token = "framing-token-0123456789"
	m, ok := mutants.Lookup("content-length-twice")
	if !ok {
		t.Fatal("no mutant content-length-twice")
	}
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Wrap(ref, token))
	defer srv.Close()
	rep, err := runWith(context.Background(), Config{BaseURL: srv.URL, Token: token, Tags: "@area-auth,@area-responses"}, Options{Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.ExitCode(); got != 1 {
		t.Errorf("exit code %d, want 1", got)
	}
	for _, v := range rep.Model().Rules {
		switch v.ID {
		case rules.ResponseDocumented:
			if v.Outcome != verdict.Fail {
				t.Errorf("RESPONSE-DOCUMENTED: %s, want failed", v.Outcome)
			}
		case rules.ResponseTimely:
			if v.Outcome == verdict.Fail {
				t.Error("RESPONSE-TIMELY failed: a broken answer is an answer")
			}
		case rules.AuthMissing:
			if !strings.Contains(v.NotJudgedBecause, "cannot frame") {
				t.Errorf("AUTH-MISSING not judged because %q, want the broken framing named", v.NotJudgedBecause)
			}
		}
	}
}
