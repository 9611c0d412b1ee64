package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// Report is the result of one run: what was checked, against what, and how
// each rule fared. Model turns it into the verdict (package verdict) that
// decides the exit status and writes every report.
type Report struct {
	// Target is the URL the requests went to; BaseURL the one the user
	// gave (empty for the bundled reference server).
	Target      string
	BaseURL     string
	CACert      string
	Reference   bool // the target is the bundled reference server
	SpecTitle   string
	SpecVersion string
	Tags        string
	Strict      bool
	Concurrency int
	Seed        uint64
	Timeout     time.Duration

	// Interrupted: the run was stopped (SIGINT, SIGTERM, a cancelled
	// context) before every scenario ran; it is incomplete, never
	// conformant.
	Interrupted bool
	// ReportDir is where the report files were written, if anywhere.
	ReportDir string
	// ConfigFile is the config file the settings came from, if any.
	ConfigFile string
	// TokenFrom says where the token came from (Config.TokenFrom).
	TokenFrom string
	// Color: the console's verdict is printed in colour (Config.Color);
	// the report files never are.
	Color bool
	// Proxy says which proxy the requests went through and where it was
	// set, or "none" and, when a proxy variable is set, why Go did not use
	// it; its credentials redacted.
	Proxy string
	// LikelyCause names a likely mistake of the setup, when the answers
	// point to one (every valid request refused, every answer a 404).
	LikelyCause string
	// Rate is the run's bound on requests a second (0: none); Throttling
	// what it met of throttling.
	Rate       float64
	Throttling steps.Throttling
	// Faults is what the run met of connection faults.
	Faults steps.Faults
	// rerunFlags are the flags a rerun needs (Config.rerunFlags).
	rerunFlags []string

	Started, Ended time.Time
	Scenarios      []steps.Result
	Rules          []RuleVerdict
	Counts         Counts
}

// RuleVerdict is one rule's outcome in a run.
type RuleVerdict struct {
	Rule    rules.Rule
	Outcome steps.Outcome // passed, failed, error, NotJudged, skipped (not run)
	// Scenarios are the scenarios of the rule the run selected; Judged
	// those that judged it on answers that came (steps.Result.Judged).
	Scenarios int
	Judged    int
	Failures  int      // failures citing the rule, from any scenario
	Notes     []string // answers noted for open rules, inconclusive scenarios
	// Why says why the rule, or some of its scenarios, were not judged.
	Why string
	// FoundBy names the scenarios of other rules that found this rule
	// broken ("BODY-TAG-ANY: A tag from every category ..."): a SHOULD
	// scenario that met a MUST breach shows it here.
	FoundBy []string
}

// NotJudged is the outcome of a rule whose scenarios ran but none judged
// it: no answer came, another rule's failure stopped them first, or they
// were inconclusive. It is never a pass.
const NotJudged steps.Outcome = "not judged"

// Counts are the scenario and exchange totals of a run.
type Counts struct {
	Total, Passed, Failed, Errored, Skipped int
	Exchanges                               int
}

// Partial reports whether the run was filtered to some rules: only a run of
// every rule may call itself a certification.
func (r *Report) Partial() bool { return r.Tags != "" }

// Conformant reports whether every rule that decides the verdict passed
// in a run that was not interrupted.
func (r *Report) Conformant() bool { return !r.Interrupted && r.ExitCode() != 1 }

// ExitCode maps the verdict to the process's exit status (verdict.Decide):
// 0 conformant, 1 non-conformant, 2 the run could not judge every scenario
// it ran.
func (r *Report) ExitCode() int { return r.decision().ExitCode }

// VerdictLine is the verdict in a few words.
func (r *Report) VerdictLine() string { return r.decision().Verdict }

// Status is the run's standing in a word or two: only a run of every rule
// is a certification; a run filtered by --tags is partial, whatever its
// outcome.
func (r *Report) Status() string { return r.decision().Status }

// WriteVerdict prints the verdict (verdict.WriteText).
func (r *Report) WriteVerdict(w io.Writer) {
	v := r.Model()
	v.Color = r.Color
	v.WriteText(w)
}

// WriteFailures prints each failed scenario with its evidence and how to
// reproduce it (verdict.WriteFailures).
func (r *Report) WriteFailures(w io.Writer) { r.Model().WriteFailures(w) }

// WriteFiles writes the report files into dir (verdict.WriteFiles).
func (r *Report) WriteFiles(dir string) error { return r.Model().WriteFiles(dir) }

// finish orders the results and derives each rule's verdict. A rule passes
// only on answers that kept it: one whose scenarios all went unanswered,
// were stopped, skipped or inconclusive is not judged, and says why.
func (r *Report) finish() {
	sortResults(r.Scenarios)
	byRule := map[rules.RuleID]*RuleVerdict{}
	for _, rule := range rules.Catalog {
		r.Rules = append(r.Rules, RuleVerdict{Rule: rule, Outcome: steps.Skipped})
	}
	for i := range r.Rules {
		byRule[r.Rules[i].Rule.ID] = &r.Rules[i]
	}
	why := map[rules.RuleID][]string{}
	errored := map[rules.RuleID]bool{}
	answered := 0
	r.Counts = Counts{}
	for _, s := range r.Scenarios {
		r.Counts.Total++
		r.Counts.Exchanges += len(s.Exchanges)
		for _, x := range s.Exchanges {
			if x.Err == nil && x.Status != 0 {
				answered++
			}
		}
		switch s.Outcome {
		case steps.Passed:
			r.Counts.Passed++
		case steps.Failed:
			r.Counts.Failed++
		case steps.Errored:
			r.Counts.Errored++
		case steps.Skipped:
			r.Counts.Skipped++
		}
		v := byRule[s.Rule.ID]
		if v == nil {
			continue
		}
		v.Scenarios++
		switch {
		case s.Judged:
			v.Judged++
		case s.Outcome == steps.Errored:
			errored[s.Rule.ID] = true
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], "error")
		case s.Outcome == steps.Skipped:
			// A reason of the scenario's own (a token too short for a
			// variant) is said here, once, in its own words.
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], skipWhy(s.Note))
		case s.SetupFailed:
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], NotJudgedSetup)
		case !answeredAll(s) && unframed(s):
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], "an answer HTTP cannot frame, failed under RESPONSE-DOCUMENTED")
		case !answeredAll(s):
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], "no answer")
		default:
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], "stopped by another rule's failure")
		}
		if s.Note != "" && (s.Rule.Level == rules.Open && s.Outcome != steps.Skipped || s.Outcome == steps.Skipped && skipWhy(s.Note) == skippedSeeNotes || strings.HasPrefix(s.Note, "inconclusive") || strings.HasPrefix(s.Note, steps.NoteNameReused)) {
			v.Notes = appendOnce(v.Notes, s.Name+": "+s.Note)
		}
		for _, f := range s.Failures {
			if fv := byRule[f.Rule.ID]; fv != nil {
				fv.Failures++
				if by := string(s.Rule.ID) + ": " + s.Name; f.Rule.ID != s.Rule.ID && !slices.Contains(fv.FoundBy, by) {
					fv.FoundBy = append(fv.FoundBy, by)
				}
			}
		}
	}
	for i := range r.Rules {
		v := &r.Rules[i]
		v.Why = strings.Join(why[v.Rule.ID], "; ")
		switch {
		case v.Failures > 0:
			v.Outcome = steps.Failed
		case errored[v.Rule.ID]:
			v.Outcome = steps.Errored
		case v.Judged > 0:
			v.Outcome = steps.Passed
		case v.Scenarios > 0:
			v.Outcome = NotJudged
		}
	}
	// The cross-cutting rules are judged on every answer of the run, not
	// only in their own scenarios: every answer that came was checked
	// against the document and arrived in time.
	for _, id := range []rules.RuleID{rules.ResponseDocumented, rules.ResponseTimely} {
		v := byRule[id]
		if (v.Outcome == steps.Skipped || v.Outcome == NotJudged) && answered > 0 {
			v.Outcome, v.Why = steps.Passed, ""
		}
	}
}

// NotJudgedSetup is why a scenario that could not be set up did not
// judge its rule: the create it needs first was not accepted, which is
// CREATE-200's failure, reported as such.
const NotJudgedSetup = "could not be set up: the valid create it needs first was not accepted (CREATE-200)"

// skipWhy is why a skipped scenario was not judged, in a few words.
func skipWhy(note string) string {
	switch {
	case strings.HasPrefix(note, "inconclusive"):
		return "inconclusive"
	case strings.Contains(note, steps.NotRunSilent):
		return "the target stopped answering"
	case strings.Contains(note, steps.NotRunInterrupted):
		return "interrupted"
	case strings.Contains(note, steps.NotRunThrottled):
		return "throttled"
	}
	if strings.HasPrefix(note, "not run: ") {
		// A reason of the scenario's own, in plantcheck's words (a token
		// too short for a variant), said once, here.
		return note
	}
	return skippedSeeNotes
}

// skippedSeeNotes is why a scenario skipped for another reason was not
// judged: the notes say it, quoted.
const skippedSeeNotes = "skipped (see notes)"

// answeredAll reports whether every exchange of a scenario was answered.
func answeredAll(s steps.Result) bool {
	return !slices.ContainsFunc(s.Exchanges, func(x *steps.Exchange) bool { return x.Err != nil || x.Status == 0 })
}

// unframed reports whether an answer of the scenario came with a framing
// HTTP forbids (two Content-Length fields of different values): an answer,
// broken, not a silence.
func unframed(s steps.Result) bool {
	return slices.ContainsFunc(s.Exchanges, func(x *steps.Exchange) bool {
		_, broken := check.BrokenFraming(x.Err)
		return broken
	})
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// ThrottleLine says what the run met of throttling: the answers waited
// out, by status, the time the run was paused, and how far its pace came
// down.
func (r *Report) ThrottleLine() string {
	t := r.Throttling
	s := fmt.Sprintf("%d answers waited out (%s): the run was paused %s in all", t.Total(), statusCounts(t.Answers), t.Paused.Round(time.Millisecond))
	if t.Pauses > 1 {
		s += fmt.Sprintf(", in %d pauses", t.Pauses)
	}
	if t.Slowest > 0 {
		s += fmt.Sprintf("; its pace came down to %s", steps.PerSecond(t.Slowest))
	}
	if r.Rate > 0 {
		s += fmt.Sprintf(" (--rate %g)", r.Rate)
	}
	if t.Exceeded != "" {
		s += "; then the run stopped waiting: " + t.Exceeded
	}
	return s
}

// FailedRules are the rules a scenario's failures cite, each once, MUST
// rules first: what its heading names.
func FailedRules(sc steps.Result) []rules.Rule {
	var out []rules.Rule
	for _, f := range sc.Failures {
		if !slices.ContainsFunc(out, func(r rules.Rule) bool { return r.ID == f.Rule.ID }) {
			out = append(out, f.Rule)
		}
	}
	slices.SortStableFunc(out, func(a, b rules.Rule) int {
		return map[bool]int{true: 0, false: 1}[a.Level == rules.Must] - map[bool]int{true: 0, false: 1}[b.Level == rules.Must]
	})
	return out
}

// Heading names a failed scenario by what it broke: its own rule, or the
// rules it found broken and its own rule as the finder, so that a MUST rule
// broken in a SHOULD scenario leads.
func Heading(sc steps.Result) string {
	failed := FailedRules(sc)
	level := func(r rules.Rule) string { return fmt.Sprintf("%s (%s)", r.ID, strings.ToUpper(string(r.Level))) }
	if len(failed) == 0 || len(failed) == 1 && failed[0].ID == sc.Rule.ID {
		return level(sc.Rule) + " " + sc.Name
	}
	parts := make([]string, len(failed))
	own := false
	for i, r := range failed {
		parts[i] = level(r)
		own = own || r.ID == sc.Rule.ID
	}
	if own {
		return strings.Join(parts, ", ") + " " + sc.Name
	}
	return strings.Join(parts, ", ") + ", found by the " + level(sc.Rule) + " scenario: " + sc.Name
}
