package conformance

import (
	"fmt"
	"io"
	"strings"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/rules"
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

// WriteFailures prints, for each failed scenario, its rule, the requirement,
// what was expected and what came back, the validator's messages, the
// exchange, and two ways to reproduce it.
func (r *Report) WriteFailures(w io.Writer) {
	failed := r.Failed()
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFailures (%d scenarios):\n", len(failed))
	for i, f := range failed {
		fmt.Fprintf(w, "\n%d) %s\n", i+1, Heading(f.Result))
		fmt.Fprintf(w, "   scenario:    features/%s\n", f.Where())
		fmt.Fprintf(w, "   requirement: %s (spec: %s)\n", f.Rule.Requirement, f.Rule.Source)
		if f.Err != nil && len(f.Failures) == 0 {
			fmt.Fprintf(w, "   error:       %s\n", indent(f.Err.Error(), "                "))
		}
		for _, fl := range f.Failures {
			if fl.Rule.ID != f.Rule.ID {
				fmt.Fprintf(w, "   rule:        %s (%s): %s\n", fl.Rule.ID, strings.ToUpper(string(fl.Rule.Level)), fl.Rule.Requirement)
			}
			fmt.Fprintf(w, "   expected:    %s\n", fl.Expected)
			fmt.Fprintf(w, "   actual:      %s\n", fl.Actual)
			for _, d := range fl.Details {
				fmt.Fprintf(w, "   - %s\n", d)
			}
			if x := fl.Exchange; x != nil {
				fmt.Fprintf(w, "   request:     %s\n", x.RequestLine())
				if x.Status != 0 {
					fmt.Fprintf(w, "   response:    %s\n", x.ResponseLine())
				}
				fmt.Fprintf(w, "   reproduce:   %s\n", indent(x.Curl(), "                "))
			}
		}
		fmt.Fprintf(w, "   rerun:       %s\n", f.Rerun)
	}
	if r.Reference {
		return
	}
	fmt.Fprintln(w, "\n(The curl commands read the token from $PLANTCHECK_TOKEN; plantcheck never prints it.)")
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
