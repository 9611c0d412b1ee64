package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// Report is the result of one run: what was checked, against what, and how
// each rule fared.
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
	// LikelyCause names a likely mistake of the setup, when the answers
	// point to one (every valid request refused, every answer a 404).
	LikelyCause string
	// Rate is the run's bound on requests a second (0: none); Throttling
	// what it met of throttling.
	Rate       float64
	Throttling steps.Throttling
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

// Conformant reports whether every MUST rule that ran passed, and in strict
// mode every SHOULD rule too.
func (r *Report) Conformant() bool {
	if r.Interrupted {
		return false
	}
	for _, v := range r.Rules {
		if v.Outcome != steps.Failed {
			continue
		}
		if v.Rule.Level == rules.Must || r.Strict && v.Rule.Level == rules.Should {
			return false
		}
	}
	return true
}

// ExitCode maps the verdict to the process's exit status: 0 conformant, 1
// non-conformant, 2 the run could not judge every scenario it ran.
func (r *Report) ExitCode() int {
	switch {
	case r.Interrupted && r.mustFailed():
		return 1
	case r.Interrupted:
		return 2
	case !r.Conformant():
		return 1
	case r.Counts.Errored > 0, len(r.mustUnjudged()) > 0:
		return 2
	default:
		return 0
	}
}

// mustFailed reports whether a MUST rule (or, strict, a SHOULD rule) failed.
func (r *Report) mustFailed() bool {
	for _, v := range r.Rules {
		if v.Outcome == steps.Failed && (v.Rule.Level == rules.Must || r.Strict && v.Rule.Level == rules.Should) {
			return true
		}
	}
	return false
}

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
			why[s.Rule.ID] = appendOnce(why[s.Rule.ID], skipWhy(s.Note))
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

// skippedSeeNotes is why a scenario skipped for a reason of its own (a
// token too short for a variant) was not judged; the notes say the reason.
const skippedSeeNotes = "skipped (see notes)"

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
	return skippedSeeNotes
}

// answeredAll reports whether every exchange of a scenario was answered.
func answeredAll(s steps.Result) bool {
	return !slices.ContainsFunc(s.Exchanges, func(x *steps.Exchange) bool { return x.Err != nil || x.Status == 0 })
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// mustUnjudged names the rules that decide the verdict (MUST, and in
// strict mode SHOULD) that the run selected but could not judge.
func (r *Report) mustUnjudged() []rules.RuleID {
	var out []rules.RuleID
	for _, v := range r.Rules {
		if v.Outcome == NotJudged && (v.Rule.Level == rules.Must || r.Strict && v.Rule.Level == rules.Should) {
			out = append(out, v.Rule.ID)
		}
	}
	return out
}

// WriteVerdict prints the verdict: every rule with its level and outcome,
// the notes on open questions, the counts, the target and the spec version.
func (r *Report) WriteVerdict(w io.Writer) {
	fmt.Fprintf(w, "\nplantcheck verdict: %s %s\n", r.SpecTitle, r.SpecVersion)
	target := r.Target
	if r.Reference {
		target += " (the bundled reference server, in-process)"
	}
	fmt.Fprintf(w, "target: %s\n", target)
	if r.ConfigFile != "" {
		fmt.Fprintf(w, "config: %s\n", r.ConfigFile)
	}
	if r.LikelyCause != "" {
		fmt.Fprintf(w, "\nLIKELY CAUSE: %s\n", r.LikelyCause)
	}
	if r.Partial() {
		fmt.Fprintf(w, "scope:  partial, scenarios selected by --tags %q\n", r.Tags)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLEVEL\tRESULT\tSCENARIOS\tREQUIREMENT")
	for _, v := range r.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", v.Rule.ID, strings.ToUpper(string(v.Rule.Level)),
			outcomeWord(v), v.Scenarios, truncate(v.Rule.Requirement, 70))
	}
	tw.Flush()

	var foundBy []string
	for _, v := range r.Rules {
		for _, by := range v.FoundBy {
			foundBy = append(foundBy, fmt.Sprintf("  %s (%s) found by %s", v.Rule.ID, strings.ToUpper(string(v.Rule.Level)), by))
		}
	}
	if len(foundBy) > 0 {
		fmt.Fprintln(w, "\nRules broken in scenarios of other rules:")
		fmt.Fprintln(w, strings.Join(foundBy, "\n"))
	}

	var notes []string
	for _, v := range r.Rules {
		for _, n := range v.Notes {
			notes = append(notes, fmt.Sprintf("  %s: %s", v.Rule.ID, n))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNoted, never failed (the spec leaves these open), and inconclusive scenarios:")
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}

	r.WriteFailures(w)

	c := r.Counts
	fmt.Fprintf(w, "\n%d scenarios: %d passed, %d failed, %d errors, %d not run; %d HTTP exchanges in %s (seed %d)\n",
		c.Total, c.Passed, c.Failed, c.Errored, c.Skipped, c.Exchanges, r.Ended.Sub(r.Started).Round(time.Millisecond), r.Seed)
	fmt.Fprintf(w, "MUST rules: %s; SHOULD rules: %s\n", r.levelSummary(rules.Must), r.levelSummary(rules.Should))
	if t := r.Throttling; t.Total() > 0 {
		fmt.Fprintf(w, "Throttled: %s\n", r.ThrottleLine())
	}
	if r.ReportDir != "" {
		fmt.Fprintf(w, "Reports: %s (summary.json, summary.md, report.html, badge.svg, junit.xml, cucumber.json)\n", r.ReportDir)
	}
	// The verdict is the last line, and nothing a target sent can stand on
	// a line of its own (package evidence escapes every line break).
	fmt.Fprintf(w, "VERDICT: %s\n", r.VerdictLine())
}

// ThrottleLine says what the run met of throttling: the answers waited
// out, by status, and the time.
func (r *Report) ThrottleLine() string {
	t := r.Throttling
	s := fmt.Sprintf("%d answers waited out (%s), %s in all", t.Total(), statusCounts(t.Answers), t.Waited.Round(time.Millisecond))
	if r.Rate > 0 {
		s += fmt.Sprintf(", at --rate %g", r.Rate)
	}
	if t.Exceeded != "" {
		s += "; then the run stopped waiting: " + t.Exceeded
	}
	return s
}

// VerdictLine is the verdict in a few words.
func (r *Report) VerdictLine() string {
	scope := ""
	if r.Partial() {
		scope = " (partial: not every rule ran)"
	}
	switch code := r.ExitCode(); {
	case r.Interrupted && code == 1:
		return "NON-CONFORMANT, INTERRUPTED: a MUST rule failed before the run was stopped" + scope
	case r.Interrupted:
		return "INTERRUPTED: the run was stopped before every scenario ran (incomplete)" + scope
	case code == 1 && r.LikelyCause != "":
		return "NON-CONFORMANT, or a mistake of the setup: see LIKELY CAUSE above" + scope
	case code == 1:
		return "NON-CONFORMANT: a MUST rule failed" + map[bool]string{true: " or, in strict mode, a SHOULD rule", false: ""}[r.Strict] + scope
	case code == 2 && r.Throttling.Exceeded != "":
		return "INCOMPLETE: the target throttled the run past plantcheck's bound (" + r.Throttling.Exceeded + "): slow the run with --rate" + scope
	case code == 2 && len(r.mustUnjudged()) > 0:
		return "INCOMPLETE: not judged: " + rules.JoinIDs(r.mustUnjudged(), ", ") + scope
	case code == 2:
		return "INCOMPLETE: some scenarios could not be judged" + scope
	case r.Partial():
		return "CONFORMANT to the rules that ran" + scope
	default:
		return "CONFORMANT: every MUST rule passed"
	}
}

func (r *Report) levelSummary(l rules.Level) string {
	var pass, fail, other int
	for _, v := range r.Rules {
		if v.Rule.Level != l {
			continue
		}
		switch v.Outcome {
		case steps.Passed:
			pass++
		case steps.Failed:
			fail++
		default:
			other++
		}
	}
	s := fmt.Sprintf("%d passed, %d failed", pass, fail)
	if other > 0 {
		s += fmt.Sprintf(", %d not run or not judged", other)
	}
	return s
}

func outcomeWord(v RuleVerdict) string {
	switch v.Outcome {
	case steps.Passed:
		word := "pass"
		if v.Rule.Level == rules.Open {
			word = "noted"
		}
		if v.Judged < v.Scenarios && v.Why != "" {
			word += fmt.Sprintf(" (%d of %d judged: %s)", v.Judged, v.Scenarios, v.Why)
		}
		return word
	case steps.Failed:
		return fmt.Sprintf("FAIL (%d)", v.Failures)
	case steps.Errored:
		return "ERROR"
	case NotJudged:
		return "not judged (" + v.Why + ")"
	default:
		return "not run"
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
