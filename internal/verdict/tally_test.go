package verdict

import (
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestTally: each rule's outcome follows from what was counted into it, by
// one decision for run, proxy and merge alike.
func TestTally(t *testing.T) {
	t.Parallel()
	id := rules.Catalog[0].ID
	tests := []struct {
		name    string
		count   func(*Tally)
		outcome Outcome
		why     string
		judged  int64
		passed  int64
	}{
		{"nothing counted: not run", func(*Tally) {}, Skip, "", 0, 0},
		{"a scenario that judged nothing: not judged, never a pass", func(t *Tally) {
			t.Scenario(id)
			t.Unjudged(id, "no answer")
		}, NotJudged, "no answer", 0, 0},
		{"judged and kept: pass, the reasons of the rest said", func(t *Tally) {
			t.Scenario(id)
			t.Scenario(id)
			t.Judged(id, 1, 1)
			t.Unjudged(id, "inconclusive")
			t.Unjudged(id, "inconclusive")
		}, Pass, "inconclusive", 1, 1},
		{"a failure decides, whatever passed", func(t *Tally) {
			t.Judged(id, 3, 2)
			t.Failed(id, 1)
			t.Errored(id)
		}, Fail, "", 3, 2},
		{"an error without a failure: error", func(t *Tally) {
			t.Scenario(id)
			t.Errored(id)
			t.Unjudged(id, "error")
		}, Error, "error", 0, 0},
		{"no verdict: its first reason stands", func(t *Tally) {
			t.NoVerdict(id, "traffic cannot show it")
			t.NoVerdict(id, "another reason")
		}, NotJudged, "traffic cannot show it", 0, 0},
		{"no verdict, then judged: the reason goes", func(t *Tally) {
			t.NoVerdict(id, "no exchange that could show it passed through")
			t.Judged(id, 2, 2)
		}, Pass, "", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := NewTally()
			tt.count(ta)
			rs := ta.Rules()
			if got, want := len(rs), len(rules.Catalog); got != want {
				t.Fatalf("%d rules, want the catalog's %d", got, want)
			}
			r := rs[0]
			if r.ID != id || r.Outcome != tt.outcome || r.NotJudgedBecause != tt.why || r.Judged != tt.judged || r.Passed != tt.passed {
				t.Errorf("%s: %s (%q), judged %d, passed %d; want %s (%q), %d, %d",
					r.ID, r.Outcome, r.NotJudgedBecause, r.Judged, r.Passed, tt.outcome, tt.why, tt.judged, tt.passed)
			}
			for _, other := range rs[1:] {
				if other.Outcome != Skip {
					t.Errorf("%s: %s, counted nothing, want skip", other.ID, other.Outcome)
				}
			}
		})
	}
}

// TestTallyOnce: notes and finders are kept once each, in order, and a
// rule outside the catalog is not counted anywhere.
func TestTallyOnce(t *testing.T) {
	t.Parallel()
	id := rules.Catalog[0].ID
	ta := NewTally()
	for range 2 {
		ta.Note(id, "a: noted")
		ta.FoundBy(id, "X: a scenario")
	}
	ta.Note(id, "b: noted")
	ta.Failed("NO-SUCH-RULE", 1)
	ta.Scenario("NO-SUCH-RULE")
	if ta.Has("NO-SUCH-RULE") {
		t.Error("a rule outside the catalog is in the tally")
	}
	rs := ta.Rules()
	if got, want := rs[0].Notes, []string{"a: noted", "b: noted"}; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got, want := rs[0].FoundBy, []string{"X: a scenario"}; !slices.Equal(got, want) {
		t.Errorf("found by %q, want %q", got, want)
	}
	for _, r := range rs {
		if r.Failures != 0 || r.Scenarios != 0 {
			t.Errorf("%s counted %d failures, %d scenarios of a rule outside the catalog", r.ID, r.Failures, r.Scenarios)
		}
	}
}
