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

// TestBytesLeftOnAConnectionStayWithTheirExchange: a server that leaves a
// chunked body on the connection and answers it later, as a request of its
// own (Python's http.server), fails the chunked scenario alone, on its own
// answer, every run. A client that reused connections would send its next
// request on that connection (at concurrency 1, every time) and read the
// late HTML answer as that request's; each exchange has a connection of
// its own (NewClient).
func TestBytesLeftOnAConnectionStayWithTheirExchange(t *testing.T) {
	t.Parallel()
	for _, conc := range []int{1, 16} {
		url, token := startTarget(t, mutantWrap("chunked-body-left"))
		rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Concurrency: conc}, Options{Output: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		failed := rep.Failed()
		if len(failed) != 1 || !strings.HasSuffix(failed[0].Name, "chunked body") {
			var names []string
			for _, f := range failed {
				names = append(names, f.Name)
			}
			t.Errorf("concurrency %d: failed %q, want the chunked body's scenario alone", conc, names)
		}
		for _, sc := range rep.Scenarios {
			for _, x := range sc.Exchanges {
				if ct := x.RespHeader.Get("Content-Type"); strings.HasPrefix(ct, "text/html") {
					t.Errorf("concurrency %d: %s: an exchange read the late answer (%s) as its own", conc, sc.Name, ct)
				}
			}
		}
	}
}
