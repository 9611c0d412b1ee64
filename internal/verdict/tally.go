package verdict

import (
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Tally is the one aggregation of results per rule: `run` counts its
// scenarios into it, `proxy` its exchanges, history.Merge the verdicts it
// combines; Rules then gives every rule of the catalog its outcome by one
// decision.
// It is not safe for concurrent use.
type Tally struct {
	rules   []Rule
	at      map[rules.RuleID]int
	inScope map[rules.RuleID]bool
	errored map[rules.RuleID]bool
	because map[rules.RuleID]string
	partly  map[rules.RuleID][]string
}

// NewTally is a tally of every rule of the catalog, in its order, none of
// them counted yet.
func NewTally() *Tally {
	t := &Tally{
		at: map[rules.RuleID]int{}, inScope: map[rules.RuleID]bool{}, errored: map[rules.RuleID]bool{},
		because: map[rules.RuleID]string{}, partly: map[rules.RuleID][]string{},
	}
	for i, r := range rules.Catalog {
		t.rules = append(t.rules, Rule{ID: r.ID, Level: r.Level, Requirement: r.Requirement, Source: r.Source})
		t.at[r.ID] = i
	}
	return t
}

// rule is id's entry, nil for a rule not in the catalog.
func (t *Tally) rule(id rules.RuleID) *Rule {
	i, ok := t.at[id]
	if !ok {
		return nil
	}
	return &t.rules[i]
}

// Has reports whether id is a rule of the catalog.
func (t *Tally) Has(id rules.RuleID) bool { _, ok := t.at[id]; return ok }

// Scenario counts one scenario of the rule that ran (run): the rule was
// selected, and is not judged unless something judged it.
func (t *Tally) Scenario(id rules.RuleID) {
	if r := t.rule(id); r != nil {
		r.Scenarios++
		t.inScope[id] = true
	}
}

// Judged counts judged judgements of the rule, passed of which kept it.
func (t *Tally) Judged(id rules.RuleID, judged, passed int64) {
	if r := t.rule(id); r != nil {
		r.Judged += judged
		r.Passed += passed
	}
}

// Failed counts n failures citing the rule.
func (t *Tally) Failed(id rules.RuleID, n int64) {
	if r := t.rule(id); r != nil {
		r.Failures += n
	}
}

// Errored marks the rule as met by an error of the harness or the network
// (a scenario of it erred).
func (t *Tally) Errored(id rules.RuleID) {
	if t.Has(id) {
		t.errored[id] = true
	}
}

// Unjudged says why some of the rule's judgements were not made (a
// scenario of it was not judged); each reason is said once, and stays
// beside whatever outcome the rule has.
func (t *Tally) Unjudged(id rules.RuleID, why string) {
	if t.Has(id) {
		t.partly[id] = appendOnce(t.partly[id], why)
	}
}

// NoVerdict puts the rule in scope with why it may have no verdict (proxy:
// traffic cannot show it, or none that could came); the first reason
// given stands, and is said only if nothing judged the rule.
func (t *Tally) NoVerdict(id rules.RuleID, why string) {
	if t.Has(id) && !t.inScope[id] {
		t.inScope[id] = true
		t.because[id] = why
	}
}

// Note keeps a note for the rule, each once.
func (t *Tally) Note(id rules.RuleID, note string) {
	if r := t.rule(id); r != nil {
		r.Notes = appendOnce(r.Notes, note)
	}
}

// FoundBy names a scenario of another rule that found this rule broken,
// each once.
func (t *Tally) FoundBy(id rules.RuleID, by string) {
	if r := t.rule(id); r != nil && !slices.Contains(r.FoundBy, by) {
		r.FoundBy = append(r.FoundBy, by)
	}
}

// Rules are the rules of the catalog with their outcomes: failed when a
// failure cites the rule, error when the harness or the network broke a
// judgement of it, passed when judged, not judged when in scope but never
// judged (never a pass), and skipped (not run) otherwise.
func (t *Tally) Rules() []Rule {
	out := slices.Clone(t.rules)
	for i := range out {
		r := &out[i]
		switch {
		case r.Failures > 0:
			r.Outcome = Fail
		case t.errored[r.ID]:
			r.Outcome = Error
		case r.Judged > 0:
			r.Outcome = Pass
		case t.inScope[r.ID]:
			r.Outcome = NotJudged
		default:
			r.Outcome = Skip
		}
		r.NotJudgedBecause = strings.Join(t.partly[r.ID], "; ")
		if r.NotJudgedBecause == "" && r.Outcome == NotJudged {
			r.NotJudgedBecause = t.because[r.ID]
		}
	}
	return out
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
