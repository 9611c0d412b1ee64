package steps

import (
	"context"
	"fmt"
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

// echoRule is the rule an echo failure counts toward: its own (CREATE-NAME,
// CREATE-TAG, CREATE-NO-TAG), or "" (the scenario's) with the check removed.
func (s *Suite) echoRule(rule rules.RuleID) rules.RuleID {
	if s.without[config.WithoutMustEcho] {
		return ""
	}
	return rule
}

// echoFailures are the one judge's echo judgements of an accepted create
// that failed (package judge judges the echo of every valid create
// answered 200); ok is false when it judged no echo (the request's echo
// cannot be judged).
func (x *Sent) echoFailures() (fails []judge.Result, ok bool) {
	for _, r := range x.judged.Results {
		switch r.Rule {
		case rules.CreateName, rules.CreateTag, rules.CreateNoTag:
			ok = true
			if !r.OK() {
				fails = append(fails, r)
			}
		}
	}
	return fails, ok
}

func (s *Suite) echoSteps() []stepPattern {
	return []stepPattern{
		{`^the plant's name is the name sent$`, s.thePlantsNameIsTheNameSent},
		{`^the plant's tag is the tag sent$`, s.thePlantsTagIsTheTagSent},
		{`^the plant has no tag$`, s.thePlantHasNoTag},
	}
}

// echoStep judges one field of the last answer's echo: the step of a
// scenario that states it.
func (s *Suite) echoStep(ctx context.Context, rule rules.RuleID) error {
	st := stateOf(ctx)
	x, err := s.response(st)
	if err != nil {
		return err
	}
	// The one judge judges the echo of every valid create answered 200.
	fails, ok := x.echoFailures()
	if !ok {
		why := make([]string, len(x.judged.Unjudged))
		for i, u := range x.judged.Unjudged {
			why[i] = strings.TrimPrefix(u, judge.EchoNotJudged)
		}
		return &HarnessError{fmt.Errorf("%w: the echo of this request cannot be judged: %s", ErrSuiteDefect, strings.Join(why, "; "))}
	}
	for _, f := range fails {
		if f.Rule == rule {
			return s.fail(st, s.echoRule(rule), x, f.Expected, f.Actual)
		}
	}
	return nil
}

func (s *Suite) thePlantsNameIsTheNameSent(ctx context.Context) error {
	return s.echoStep(ctx, rules.CreateName)
}

func (s *Suite) thePlantsTagIsTheTagSent(ctx context.Context) error {
	return s.echoStep(ctx, rules.CreateTag)
}

func (s *Suite) thePlantHasNoTag(ctx context.Context) error {
	return s.echoStep(ctx, rules.CreateNoTag)
}

// echoUnderOwnRule lays the one judge's echo judgements of the scenario's
// exchanges under the scenario's own rule, at its level, as plantcheck did
// before the echo was a MUST (config.WithoutMustEcho: the self-test's proof that
// a SHOULD scenario then hides a MUST breach).
func (s *Suite) echoUnderOwnRule(st *state) {
	for _, x := range st.exchanges {
		for i, r := range x.judged.Results {
			switch r.Rule {
			case rules.CreateName, rules.CreateTag, rules.CreateNoTag:
				x.judged.Results[i].Rule = st.rule.ID
			}
		}
	}
}
