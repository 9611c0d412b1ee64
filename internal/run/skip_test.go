package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// TestReportSkipKinds: why a skipped scenario left its rule not judged is
// read from the kind of its skip (errors.Is), never from its note's text: a
// note that quotes another kind's words is classified by its kind.
func TestReportSkipKinds(t *testing.T) {
	t.Parallel()
	rule, _ := rules.Lookup(rules.AuthMissing)
	tests := []struct {
		name  string
		skip  error
		note  string
		why   string
		noted bool
	}{
		{"silent", steps.ErrSilent, "not run: " + steps.NotRunSilent + " 3 requests in a row", "the target stopped answering", false},
		{"interrupted", steps.ErrInterrupted, "not run: " + steps.NotRunInterrupted, "interrupted", false},
		{"throttled", fmt.Errorf("%w (5 pauses)", client.ErrThrottled), "not run: " + steps.NotRunThrottled, "throttled", false},
		{"inconclusive", steps.ErrInconclusive, "inconclusive: the id may be stored", "inconclusive: the id may be stored", false},
		{"inconclusive, a note in other words", steps.ErrInconclusive, "the id may be stored", "inconclusive: the id may be stored", false},
		{"a reason of its own", steps.ErrNotApplicable, "not run: the token is too short", "not run: the token is too short", false},
		{"its own reason, quoting another's words", steps.ErrNotApplicable, "not run: " + steps.NotRunSilent, "not run: " + steps.NotRunSilent, false},
		{"no kind, a note that reads like one", nil, "not run: " + steps.NotRunInterrupted, skippedSeeNotes, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Scenarios: []steps.Result{{Name: "a scenario", Rule: rule, Outcome: steps.Skipped, Skip: tt.skip, Note: tt.note}}}
			r.finish()
			for _, v := range r.Model().Rules {
				if v.ID != rules.AuthMissing {
					continue
				}
				if v.Outcome != verdict.NotJudged || v.NotJudgedBecause != tt.why {
					t.Errorf("%s (%q), want not judged (%q)", v.Outcome, v.NotJudgedBecause, tt.why)
				}
				if got := len(v.Notes) > 0; got != tt.noted {
					t.Errorf("notes %q: noted %v, want %v", v.Notes, got, tt.noted)
				}
			}
		})
	}
}

// TestReportNoteKinds: the note of a judged scenario reaches its rule's
// notes by its kind (Result.Noted, errors.Is), never by its text: a note
// that merely begins with the words of one does not.
func TestReportNoteKinds(t *testing.T) {
	t.Parallel()
	rule, _ := rules.Lookup(rules.Create200)
	note := steps.NoteNameReused + ": sent again under a name not used before, and accepted"
	tests := []struct {
		name  string
		noted error
		note  string
		want  bool
	}{
		{"a name reused, of that kind", steps.ErrNameReused, note, true},
		{"a name reused, wrapped", fmt.Errorf("case 3: %w", steps.ErrNameReused), note, true},
		{"no kind, the same words", nil, note, false},
		{"no note", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Scenarios: []steps.Result{{Name: "a scenario", Rule: rule, Outcome: steps.Passed, Judged: true, Note: tt.note, Noted: tt.noted,
				Judgements: []judge.Result{{Rule: rule.ID}}}}}
			r.finish()
			for _, v := range r.Model().Rules {
				if v.ID != rules.Create200 {
					continue
				}
				if got := len(v.Notes) > 0; got != tt.want {
					t.Errorf("notes %q: noted %v, want %v", v.Notes, got, tt.want)
				}
			}
		})
	}
}

// TestARefusedRequestIsNoPassOfResponseTimely: a request whose connection
// the target refused on every try got no answer, which RESPONSE-TIMELY
// alone reads; so RESPONSE-TIMELY cannot pass on the answers that came to
// other requests (a partial run of @BODY-OBJECT against a server that died
// on its null body read `RESPONSE-TIMELY MUST pass 0`). Another error of
// the harness leaves it to those answers.
func TestARefusedRequestIsNoPassOfResponseTimely(t *testing.T) {
	t.Parallel()
	rule, _ := rules.Lookup(rules.BodyObject)
	tests := []struct {
		name string
		err  error
		want verdict.Outcome
	}{
		{"refused", &steps.HarnessError{Err: fmt.Errorf("%w: connect: connection refused", steps.ErrUnreachable)}, verdict.Error},
		{"a defect of the suite", &steps.HarnessError{Err: steps.ErrSuiteDefect}, verdict.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answered := []judge.Result{{Rule: rules.ResponseTimely}, {Rule: rules.ResponseMedia}, {Rule: rules.BodyObject}}
			r := &Report{Scenarios: []steps.Result{
				{ID: "1", Name: "answered", Rule: rule, Outcome: steps.Passed, Judged: true, Judgements: answered},
				{ID: "2", Name: "refused", Rule: rule, Outcome: steps.Errored, Err: tt.err},
			}}
			r.finish()
			for _, v := range r.Model().Rules {
				switch v.ID {
				case rules.ResponseTimely:
					if v.Outcome != tt.want {
						t.Errorf("RESPONSE-TIMELY %s (%q), want %s", v.Outcome, v.NotJudgedBecause, tt.want)
					}
					if tt.want == verdict.Error && v.NotJudgedBecause != whyRefused {
						t.Errorf("RESPONSE-TIMELY's reason %q, want %q", v.NotJudgedBecause, whyRefused)
					}
				case rules.ResponseMedia:
					// An answer rule reads the answers that came, as judge does.
					if v.Outcome != verdict.Pass {
						t.Errorf("RESPONSE-MEDIA %s, want pass on the answer that came", v.Outcome)
					}
				}
			}
			if m := r.Model(); m.ExitCode != 2 {
				t.Errorf("exit %d, want 2: a scenario erred", m.ExitCode)
			}
		})
	}
}

// TestAnAnswerIsJudgedWhateverBecameOfTheRequestsBesideIt: a target that
// answers a create with a wrong name and, from its first create on,
// refuses every connection. The generated cases it did not take are
// refused on every try, and the scenario errs; the answers that came still
// fail CREATE-NAME, as judge fails them on the run's recording (a trial's
// node server read CREATE-TAG pass in the run and fail in judge). Before
// the fix, the answers after the first refused case in the scenario's
// order were dropped: this test then failed about one run in ten, when
// the case taken was not the first.
func TestAnAnswerIsJudgedWhateverBecameOfTheRequestsBesideIt(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"name"`)) {
			once.Do(func() { l.Close() }) // the first create: every later connection is refused
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"not the name sent"}`)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	rep, err := runWith(context.Background(), Config{BaseURL: "http://" + l.Addr().String(), Token: "tok-dies-0123456789abcdef", Tags: "@GEN-VALID"}, Options{Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if v := verdictOf(t, rep, rules.CreateName); v.Outcome != verdict.Fail {
		t.Errorf("CREATE-NAME %s, want fail on the answer that came", v.Outcome)
	}
	if code := rep.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1: a MUST rule failed", code)
	}
}
