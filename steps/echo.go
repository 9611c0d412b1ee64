package steps

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The exact echo is a MUST whatever the scenario: rule 1 says a valid
// request is answered with "a Plant record (name, and tag where present)",
// and a Plant record that carries another name is not that record. So a 200
// whose record is not the very name and tag sent fails CREATE-NAME,
// CREATE-TAG or CREATE-NO-TAG, even in a SHOULD or OPEN scenario, whose own
// rule covers only a refusal of a value the spec lets a server refuse.
var echoRules = []rules.RuleID{rules.CreateName, rules.CreateTag, rules.CreateNoTag}

// echoStep reads the one judge's judgement of one field of the last
// answer's echo; with the check removed (config.WithoutMustEcho), a
// failure counts toward the scenario's rule.
func (s *Suite) echoStep(ctx context.Context, rule rules.RuleID) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(x.judged.Results, func(r judge.Result) bool { return slices.Contains(echoRules, r.Rule) }) {
		why := make([]string, len(x.judged.Unjudged))
		for i, u := range x.judged.Unjudged {
			why[i] = strings.TrimPrefix(u, judge.EchoNotJudged)
		}
		return &HarnessError{fmt.Errorf("%w: the echo of this request cannot be judged: %s", ErrSuiteDefect, strings.Join(why, "; "))}
	}
	if j, ok := x.JudgedBy(rule); ok && !j.OK() {
		if slices.Contains(s.cfg.Without, config.WithoutMustEcho) {
			rule = ""
		}
		return s.fail(st, rule, x, j.Expected, j.Actual)
	}
	return nil
}
