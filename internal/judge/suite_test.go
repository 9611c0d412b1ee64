package judge_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// TestClassifierNamesEveryScenariosRule holds the classifier to the suite:
// the whole suite runs (godog, real) against the reference server on
// loopback, and for every request it sends, the classifier (through the
// steps' after-hook, judge.Exercises) must name the scenario's own rule,
// but for the few exceptions below.
func TestClassifierNamesEveryScenariosRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	url, token, stop, err := reference.StartLoopback()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	cfg, err := config.Run{BaseURL: url, Token: token, Reference: true, Seed: 1}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run.Run(context.Background(), run.Config(cfg), run.Options{Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	requests, scenarios := 0, map[rules.RuleID]bool{}
	for _, sc := range rep.Scenarios {
		if sc.Outcome != steps.Passed {
			t.Errorf("%s (%s): %s against the reference, want passed", sc.Name, sc.Rule.ID, sc.Outcome)
		}
		scenarios[sc.Rule.ID] = true
		for _, x := range sc.Exchanges {
			requests++
			if slices.Contains(exercises(x, token), sc.Rule.ID) {
				continue
			}
			// A rule of the answer is named by the judge's check of it.
			if _, judged := x.JudgedBy(sc.Rule.ID); judged && judge.AnswerRule(sc.Rule.ID) {
				continue
			}
			if why, ok := excepted(sc, x, token); ok {
				t.Logf("%s: %s: %s", sc.Rule.ID, x.Label, why)
				continue
			}
			t.Errorf("%s (%s): the classifier names %v for a request it sends: %s", sc.Name, sc.Rule.ID, exercises(x, token), x.RequestLine())
		}
	}
	// Every rule of the catalog has a scenario that ran, and sent requests.
	for _, r := range rules.Catalog {
		if !scenarios[r.ID] {
			t.Errorf("no scenario of %s ran: the test shows nothing for it", r.ID)
		}
	}
	if requests < len(rules.Catalog) {
		t.Errorf("%d requests in all: the test shows nothing", requests)
	}
}

// exercises is judge.Exercises' reading of a request the suite sent.
func exercises(x *steps.Sent, token string) []rules.RuleID {
	v, err := spec.Default()
	if err != nil {
		panic(err)
	}
	return judge.Exercises(judge.Request{Header: x.Header, Body: x.Body, Valid: judge.Conforms(v, x.Header, x.Body), Issued: token})
}

// excepted says why a request need not exercise its scenario's own rule,
// for the kinds of scenario whose rule a request alone cannot show.
func excepted(sc steps.Result, x *steps.Sent, token string) (string, bool) {
	valid := slices.Contains(exercises(x, token), rules.Create200)
	switch sc.Rule.ID {
	case rules.GenValid, rules.GenBoundary:
		// Generated valid bodies: that the suite generated them is not in
		// the request; each is a valid create, as the classifier says.
		return "a generated valid body: a valid create", valid
	case rules.GenInvalid:
		// Each generated invalid case counts toward the rule of what it
		// breaks (BODY-ID-INTEGER, ...), the scenario's own rule failing
		// with it: a refusal is due.
		return "a generated invalid body: counted under the rule it breaks", slices.Contains(exercises(x, token), rules.ErrorRecord)
	case rules.OpenReusedID:
		// Whether an id was sent before is the earlier request's to say.
		return "a valid create whose id was sent before", valid
	case rules.AuthMissing, rules.AuthUnknown:
		// Scenarios that first send an accepted request: to be right after
		// it, to be given the cookies the service sets, and to send it, its
		// id or its name again with other credentials.
		return "the accepted request the scenario sends first", valid
	}
	return "", false
}
