package run

import (
	"io"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/steps"
)

// What the tests ask of a report that no production path does.

// Conformant reports whether every rule that decides the verdict passed
// in a run that was not interrupted.
func (r *Report) Conformant() bool { return !r.Interrupted && r.ExitCode() != 1 }

// Status is the run's standing in a word or two (verdict.Verdict.Status).
func (r *Report) Status() string { return r.Model().Status }

// WriteFailures prints each failed scenario with its evidence and how to
// reproduce it (verdict.WriteFailures).
func (r *Report) WriteFailures(w io.Writer) { r.Model().WriteFailures(w, verdict.TextOptions{}) }

// FailedScenario is one scenario that failed or erred, with the command
// that reruns it.
type FailedScenario struct {
	steps.Result
	Rerun string
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
