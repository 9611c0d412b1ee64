package run

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// Report is the result of one run: what was checked, against what, and how
// each rule fared. Model turns it into the verdict (package verdict) that
// decides the exit status and writes every report.
type Report struct {
	// Config is the run's configuration, its secrets (the token, the
	// headers' values) cleared: the report has no need of them.
	Config Config
	// Target is the URL the requests went to.
	Target                 string
	SpecTitle, SpecVersion string

	// Interrupted: the run was stopped (SIGINT, SIGTERM, a cancelled
	// context) before every scenario ran; it is incomplete, never
	// conformant.
	Interrupted bool
	// Proxy says which proxy the requests went through and where it was
	// set, or "none" and, when a proxy variable is set, why Go did not use
	// it; its credentials redacted.
	Proxy string
	// LikelyCause names a likely mistake of the setup, when the answers
	// point to one (every valid request refused, every answer a 404).
	LikelyCause string
	Throttling  client.Throttling
	Faults      client.Faults
	rerunFlags  []string // Config.rerunFlags

	Started, Ended time.Time
	Scenarios      []steps.Result
	// Baseline, when set, is the earlier verdict whose failures are known
	// (--baseline): the exit status is decided against it.
	Baseline *verdict.Baseline

	// model is the run's verdict, built once, when first asked for
	// (Model): a report is whole when Run returns, and read only after.
	model *verdict.Verdict
}

// Partial reports whether the run was filtered to some rules: only a run of
// every rule may call itself a certification.
func (r *Report) Partial() bool { return r.Config.Tags != "" }

// ExitCode maps the verdict to the process's exit status (verdict.Decide):
// 0 conformant, 1 non-conformant, 2 the run could not judge every scenario
// it ran.
func (r *Report) ExitCode() int { return r.Model().ExitCode }

func (r *Report) VerdictLine() string { return r.Model().Verdict }

// WriteVerdict prints the verdict (verdict.WriteText), in colour and
// whole when the run asked for it.
func (r *Report) WriteVerdict(w io.Writer) {
	r.Model().WriteText(w, verdict.TextOptions{Color: r.Config.Color, Verbose: r.Config.Verbose})
}

// WriteFiles writes the report files into dir (verdict.WriteFiles).
func (r *Report) WriteFiles(dir string) error { return r.Model().WriteFiles(dir) }

// Rerun returns the command that runs one rule again against the same
// target and sends the same requests: the same seed draws the same cases
// and strings (fresh ids are drawn apart from the seed, so that a rerun
// never meets an id its run stored).
func (r *Report) Rerun(ruleID rules.RuleID) string {
	return strings.Join(append(append([]string{"plantcheck run"}, r.rerunFlags...), "--tags '@"+string(ruleID)+"'"), " ")
}

// finish orders the results; the verdict is built again from them (Model).
func (r *Report) finish() {
	r.model = nil
	// In the order the features are read: by file, then by position in
	// the file (godog numbers pickles in parse order).
	slices.SortStableFunc(r.Scenarios, func(a, b steps.Result) int {
		if c := strings.Compare(a.URI, b.URI); c != 0 {
			return c
		}
		ai, _ := strconv.Atoi(a.ID)
		bi, _ := strconv.Atoi(b.ID)
		return ai - bi
	})
}

// tally counts a scenario into its rules' verdicts (verdict.Tally). A rule
// passes only on answers that kept it: one whose scenarios all went
// unanswered, were stopped, skipped or inconclusive is not judged, and
// says why.
func tally(t *verdict.Tally, s steps.Result) {
	// Every rule's outcome is the one judge's judgements, counted as
	// the proxy and `plantcheck judge` count theirs. A rule's failures are counted once per scenario that found it
	// broken: how many of a scenario's requests broke it may depend
	// on their order (two cases sent at once with one id at an edge of
	// int64, to a service that refuses a stored id), its verdict not.
	failed := map[rules.RuleID]bool{}
	for _, res := range s.Judgements {
		if res.OK() {
			t.Judged(res.Rule, 1, 1)
			continue
		}
		t.Judged(res.Rule, 1, 0)
		if !failed[res.Rule] {
			failed[res.Rule] = true
			t.Failed(res.Rule, 1)
		}
	}
	id := s.Rule.ID
	if !t.Has(id) {
		return
	}
	t.Scenario(id)
	switch {
	case s.Judged:
	case s.Outcome == steps.Errored:
		t.Errored(id)
		t.Unjudged(id, "error")
		if errors.Is(s.Err, steps.ErrUnreachable) {
			// A request with no answer is RESPONSE-TIMELY's alone
			// (judge.Answered): whatever rule the scenario was of, that
			// rule cannot pass on the answers that did come.
			t.Errored(rules.ResponseTimely)
			t.Unjudged(rules.ResponseTimely, whyRefused)
		}
	case s.Outcome == steps.Skipped:
		// A reason of the scenario's own (a token too short for a
		// variant) is said here, once, in its own words.
		t.Unjudged(id, skipWhy(s))
	case s.SetupFailed:
		t.Unjudged(id, NotJudgedSetup)
	case !answeredAll(s) && unframed(s):
		t.Unjudged(id, "an answer HTTP cannot frame, failed under RESPONSE-DOCUMENTED")
	case !answeredAll(s):
		t.Unjudged(id, "no answer")
	default:
		t.Unjudged(id, maskedBy(s))
	}
	if s.Note != "" && (s.Rule.Level == rules.Open && s.Outcome != steps.Skipped || s.Outcome == steps.Skipped && skipWhy(s) == skippedSeeNotes || errors.Is(s.Noted, steps.ErrNameReused)) {
		t.Note(id, s.Name+": "+s.Note)
	}
	for _, f := range s.Failures {
		if f.Rule.ID != id {
			t.FoundBy(f.Rule.ID, string(id)+": "+s.Name)
		}
	}
}

// whyRefused is why RESPONSE-TIMELY was not judged on a request the
// target refused the connection of, on every try.
const whyRefused = "a request got no answer: the target refused its connection on every try"

// NotJudgedSetup is why a scenario that could not be set up did not
// judge its rule: the create it needs first was not accepted, which is
// CREATE-200's failure, reported as such.
const NotJudgedSetup = "could not be set up: the valid create it needs first was not accepted (CREATE-200)"

// skipWhy is why a skipped scenario was not judged, in a few words, by
// the kind of its skip (steps.Result.Skip).
func skipWhy(s steps.Result) string {
	switch {
	case errors.Is(s.Skip, steps.ErrInconclusive):
		// Its reason in its own words, said once with the rule (each
		// inconclusive scenario of a rule gives the same).
		if strings.HasPrefix(s.Note, "inconclusive") {
			return s.Note
		}
		if s.Note != "" {
			return "inconclusive: " + s.Note
		}
		return "inconclusive"
	case errors.Is(s.Skip, steps.ErrSilent):
		return "the target stopped answering"
	case errors.Is(s.Skip, steps.ErrInterrupted):
		return "interrupted"
	case errors.Is(s.Skip, client.ErrThrottled):
		return "throttled"
	case errors.Is(s.Skip, steps.ErrNotApplicable):
		// A reason of the scenario's own, in plantcheck's words (a token
		// too short for a variant), said once, here.
		return s.Note
	}
	return skippedSeeNotes
}

// skippedSeeNotes is why a scenario skipped for another reason was not
// judged: the notes say it, quoted.
const skippedSeeNotes = "skipped (see notes)"

func answeredAll(s steps.Result) bool {
	return !slices.ContainsFunc(s.Exchanges, func(x *steps.Sent) bool { return x.Err != nil || x.Status == 0 })
}

// maskedBy is why a scenario that was answered did not judge its own
// rule: the rule another answer failed first, with the statuses that came,
// so that the reader knows what to fix before this rule can be judged.
func maskedBy(s steps.Result) string {
	var masks []rules.RuleID
	for _, f := range s.Failures {
		if f.Rule.ID != s.Rule.ID && !slices.Contains(masks, f.Rule.ID) {
			masks = append(masks, f.Rule.ID)
		}
	}
	if len(masks) == 0 {
		return "no answer of its scenario showed it"
	}
	var statuses []int
	for _, x := range s.Exchanges {
		statuses = append(statuses, x.Status)
	}
	slices.Sort(statuses)
	var said []string
	for _, st := range slices.Compact(statuses) {
		said = append(said, strconv.Itoa(st))
	}
	answers := "every answer was status " + said[0]
	if len(said) > 1 {
		answers = "the answers were status " + strings.Join(said, ", ")
	}
	they := "it fails"
	if len(masks) > 1 {
		they = "they fail"
	}
	return fmt.Sprintf("masked by %s: %s, which %s; fix that first", rules.JoinIDs(masks, " and "), answers, they)
}

// unframed reports whether an answer of the scenario came with a framing
// HTTP forbids (two Content-Length fields of different values): an answer,
// broken, not a silence.
func unframed(s steps.Result) bool {
	return slices.ContainsFunc(s.Exchanges, func(x *steps.Sent) bool {
		_, broken := judge.BrokenFraming(x.Err)
		return broken
	})
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
		s += fmt.Sprintf("; its pace came down to %s", client.PerSecond(t.Slowest))
	}
	if r.Config.Rate > 0 {
		s += fmt.Sprintf(" (--rate %g)", r.Config.Rate)
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
		return level(sc.Rule) + ": " + sc.Name
	}
	parts := make([]string, len(failed))
	for i, r := range failed {
		parts[i] = level(r)
	}
	if slices.ContainsFunc(failed, func(r rules.Rule) bool { return r.ID == sc.Rule.ID }) {
		return strings.Join(parts, ", ") + ": " + sc.Name
	}
	return strings.Join(parts, ", ") + ", found by the " + level(sc.Rule) + " scenario: " + sc.Name
}
