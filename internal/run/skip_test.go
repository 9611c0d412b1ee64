package run

import (
	"fmt"
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
