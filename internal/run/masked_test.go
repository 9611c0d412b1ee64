package run

import (
	"testing"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// A rule its scenario could not judge because another rule's failure came
// first names that rule and the answers, so the reader knows what to fix
// before it can be judged.
func TestMaskedByNamesTheMask(t *testing.T) {
	t.Parallel()
	rule := func(id rules.RuleID) rules.Rule { r, _ := rules.Lookup(id); return r }
	sent := func(statuses ...int) []*steps.Sent {
		var out []*steps.Sent
		for _, s := range statuses {
			out = append(out, &steps.Sent{Exchange: exchange.Exchange{Status: s}})
		}
		return out
	}
	failed := func(ids ...rules.RuleID) []*steps.Failure {
		var out []*steps.Failure
		for _, id := range ids {
			out = append(out, &steps.Failure{Rule: rule(id)})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		res  steps.Result
		want string
	}{
		{"no other rule failed",
			steps.Result{Rule: rule(rules.CreateNoTag), Exchanges: sent(200)},
			"no answer of its scenario showed it"},
		{"one mask, one status",
			steps.Result{Rule: rule(rules.CreateNoTag), Exchanges: sent(201, 201), Failures: failed(rules.Create200, rules.Create200)},
			"masked by CREATE-200: every answer was status 201, which it fails; fix that first"},
		{"two masks, two statuses",
			steps.Result{Rule: rule(rules.CreateName), Exchanges: sent(400, 201), Failures: failed(rules.Create200, rules.CreateName, rules.ResponseDocumented)},
			"masked by CREATE-200 and RESPONSE-DOCUMENTED: the answers were status 201, 400, which they fail; fix that first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := maskedBy(tc.res); got != tc.want {
				t.Errorf("maskedBy = %q\nwant       %q", got, tc.want)
			}
		})
	}
}
