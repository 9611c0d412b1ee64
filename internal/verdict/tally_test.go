package verdict

import (
	"slices"
	"strings"
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
		{"judged, none kept, none failed (an edited summary merged): no evidence, never a pass", func(t *Tally) {
			t.NoVerdict(id, "no exchange that could show it passed through")
			t.Judged(id, 3, 0)
		}, NotJudged, "no exchange that could show it passed through", 3, 0},
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

// TestTallyTraffic: a tally of traffic counts each exchange, keeps the
// first failures of each rule and each client group as evidence (a
// request once, under its first group with room), and writes the rest as
// counted; history.Merge adds verdicts into one the same way.
func TestTallyTraffic(t *testing.T) {
	t.Parallel()
	name, auth := rules.CreateName, rules.AuthMissing
	ta := NewTrafficTally(2)
	for range 3 {
		for _, s := range ta.Exchange(Judged{Failed: []rules.RuleID{name}, Client: []rules.RuleID{auth, ""}}) {
			ta.Keep(s, Evidence{Rule: s.Rule, Expected: "x secret"})
		}
	}
	ta.Exchange(Judged{Passed: []rules.RuleID{name}, Unjudged: []string{"cut"}, Own: "upstream-failed"})
	ta.Own("upstream-timeout")
	v := &Verdict{}
	ta.Traffic(v, func(s string) string { return strings.ReplaceAll(s, "secret", "<redacted>") })
	c := v.Counts
	if c.Exchanges != 5 || c.Judged != 4 || c.JudgedInPart != 1 || c.ServerViolations != 3 || c.ClientViolations != 3 || c.ProxyAnswers["upstream-failed"] != 1 {
		t.Errorf("counts %+v", c)
	}
	if got, want := ta.Progress(), "5 exchanges (4 judged), 3 server-side violations, 3 client-side violations, 2 answered by the proxy"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	blocks := map[string]Block{}
	for _, b := range v.Failures {
		blocks[b.Side+" "+label(b.Rule)] = b
	}
	for key, want := range map[string][2]int64{"server CREATE-NAME": {2, 1}, "client AUTH-MISSING": {2, 1}, "client OTHER": {1, 2}} {
		b := blocks[key]
		if int64(len(b.Evidence)) != want[0] || b.More != want[1] {
			t.Errorf("%s: %d kept, %d more; want %d, %d", key, len(b.Evidence), b.More, want[0], want[1])
		}
		for _, e := range b.Evidence {
			if e.Expected != "x <redacted>" || b.Side == "client" && e.Rule != "" {
				t.Errorf("%s: evidence %+v, want it redacted, a client's citing no rule", key, e)
			}
		}
	}

	merged := NewTrafficTally(2)
	for range 2 {
		if err := merged.Add(v, func(e Evidence) Evidence { return e }); err != nil {
			t.Fatal(err)
		}
	}
	m := &Verdict{}
	merged.Traffic(m, func(s string) string { return s })
	if m.Counts.Exchanges != 10 || m.Counts.ServerViolations != 6 || m.Counts.ProxyAnswers["upstream-timeout"] != 2 {
		t.Errorf("merged counts %+v", m.Counts)
	}
	for _, b := range m.Failures {
		if b.Side == "server" && (len(b.Evidence) != 2 || b.More != 4) {
			t.Errorf("merged %s: %d kept, %d more; want 2, 4", b.Rule, len(b.Evidence), b.More)
		}
	}
	if err := merged.Add(&Verdict{Rules: []Rule{{ID: "NO-SUCH-RULE"}}}, nil); err == nil {
		t.Error("a rule outside the catalog was added")
	}
}
