package steps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Failure is a rule the target broke. Its text names the rule and its level,
// quotes the requirement, and says what was expected and what came back.
type Failure struct {
	Rule     rules.Rule
	Expected string
	Actual   string
	// Details are further lines of evidence, such as validator messages.
	Details []string
	// Exchange is the request and response the failure was seen in, if any.
	Exchange *Sent
}

func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s\n", f.Rule.ID, strings.ToUpper(string(f.Rule.Level)), f.Rule.Requirement)
	fmt.Fprintf(&b, "  expected: %s\n", f.Expected)
	fmt.Fprintf(&b, "  actual:   %s", f.Actual)
	for _, d := range f.Details {
		fmt.Fprintf(&b, "\n  - %s", d)
	}
	if x := f.Exchange; x != nil {
		fmt.Fprintf(&b, "\n  request:  %s", x.RequestLine())
		if x.Status != 0 {
			fmt.Fprintf(&b, "\n  response: %s", x.ResponseLine())
		}
	}
	return b.String()
}

// HarnessError is a fault of the harness or the network, not a rule the
// target broke: the scenario's outcome is "error", not "fail".
type HarnessError struct{ Err error }

func (e *HarnessError) Error() string {
	return "plantcheck could not judge this scenario: " + e.Err.Error()
}
func (e *HarnessError) Unwrap() error { return e.Err }

// ErrUnreachable means the target refused the connection or could not be
// resolved.
var ErrUnreachable = errors.New("the target cannot be reached")

// ErrSuiteDefect means a scenario sent a request whose validity is not what
// the scenario claims: a defect of the suite, not of the target.
var ErrSuiteDefect = errors.New("suite defect")

// Outcome is how one scenario ended.
type Outcome string

const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"  // the target broke a rule
	Errored Outcome = "error"   // the harness or the network broke
	Skipped Outcome = "skipped" // not run, or inconclusive
)
