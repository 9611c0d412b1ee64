package run

import (
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// Rerun returns the command that runs one rule again against the same
// target and sends the same requests: the same seed draws the same cases
// and strings (fresh ids are drawn apart from the seed, so that a rerun
// never meets an id its run stored).
func (r *Report) Rerun(ruleID rules.RuleID) string {
	return strings.Join(append(append([]string{"plantcheck run"}, r.rerunFlags...), "--tags '@"+string(ruleID)+"'"), " ")
}

// FailedScenario is one scenario that failed or could not be judged, with
// what a developer needs to fix it.
type FailedScenario struct {
	steps.Result
	Rerun string
}

// Where is the scenario's file and line, such as create_plant.feature:34.
func (f FailedScenario) Where() string {
	scs, _ := features.Scenarios()
	for _, s := range scs {
		if s.URI == f.URI && s.Name == f.Name {
			return fmt.Sprintf("%s:%d", s.URI, s.Line)
		}
	}
	return f.URI
}

// Failed returns the scenarios that failed or erred, in feature order.
func (r *Report) Failed() []FailedScenario {
	var out []FailedScenario
	for _, s := range r.Scenarios {
		if s.Outcome == steps.Failed || s.Outcome == steps.Errored {
			out = append(out, FailedScenario{Result: s, Rerun: r.Rerun(s.Rule.ID)})
		}
	}
	return out
}
