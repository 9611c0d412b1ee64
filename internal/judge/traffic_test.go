package judge

import (
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestCatalogCovered: every rule of the catalog is either judged from
// traffic or listed with the reason it cannot be, not both.
func TestCatalogCovered(t *testing.T) {
	for _, r := range rules.Catalog {
		judged := slices.Contains(FromTraffic, r.ID)
		_, why := NotFromTraffic[r.ID]
		if judged == why {
			t.Errorf("%s: judged %v, reason given %v; want exactly one", r.ID, judged, why)
		}
	}
	for _, id := range FromTraffic {
		if _, ok := rules.Lookup(id); !ok {
			t.Errorf("%s is judged but not in the catalog", id)
		}
	}
}

// TestChecksNameTheirRules: each check of the judge's list names one rule
// of the catalog, no rule twice, so that a step reading a rule's result
// reads the one judgement of it. A rule traffic shows only in part is
// listed apart (partly), since the proxy leaves it not judged.
func TestChecksNameTheirRules(t *testing.T) {
	partly := []rules.RuleID{rules.Create200}
	seen := map[rules.RuleID]bool{}
	for _, c := range checks {
		if _, ok := rules.Lookup(c.rule); !ok {
			t.Errorf("the check of %s judges a rule the catalog lacks", c.rule)
		}
		if full, part := slices.Contains(FromTraffic, c.rule), slices.Contains(partly, c.rule); full == part {
			t.Errorf("the check of %s: judged from traffic %v, in part %v; want exactly one", c.rule, full, part)
		}
		if seen[c.rule] {
			t.Errorf("%s is judged by two checks", c.rule)
		}
		seen[c.rule] = true
		if c.judge == nil {
			t.Errorf("the check of %s has no function", c.rule)
		}
	}
}
