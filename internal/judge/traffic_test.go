package judge

import (
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestRulesCoverTheCatalog: every rule of the catalog is one row of the
// judge's Rules, and no row names a rule the catalog lacks, so that a step
// reading a rule's result reads the one judgement of it.
func TestRulesCoverTheCatalog(t *testing.T) {
	t.Parallel()
	rows := map[rules.RuleID]int{}
	for _, r := range Rules {
		rows[r.ID]++
		if _, ok := rules.Lookup(r.ID); !ok {
			t.Errorf("%s is a rule of the judge but not of the catalog", r.ID)
		}
	}
	for _, r := range rules.Catalog {
		if rows[r.ID] != 1 {
			t.Errorf("%s: %d rows in the judge's Rules, want 1", r.ID, rows[r.ID])
		}
	}
}

// TestFromTraffic: a rule is judged from traffic or given the reason it
// cannot be, never both; the rules read from the request or the answer
// alone are judged from traffic.
func TestFromTraffic(t *testing.T) {
	t.Parallel()
	for _, id := range []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented, rules.ErrorRecord, rules.CreateName,
		rules.AuthMissing, rules.BodyIDInt64, rules.MediaRequest, rules.HeaderSize} {
		if _, not := NotFromTraffic[id]; not {
			t.Errorf("%s: not from traffic, want from traffic", id)
		}
	}
	for _, id := range []rules.RuleID{rules.Create200, rules.AuthUnknown, rules.GenInvalid, rules.OpenReusedID, rules.ResponseTimely} {
		if NotFromTraffic[id] == "" {
			t.Errorf("%s: from traffic, want a reason it is not", id)
		}
	}
	if got, want := len(FromTraffic)+len(NotFromTraffic), len(rules.Catalog); got != want {
		t.Errorf("%d rules judged or given a reason, want %d", got, want)
	}
}
