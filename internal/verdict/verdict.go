// Package verdict is the one result model of plantcheck and every report
// written from it. `plantcheck run` (scenarios of the features against a
// target) and `plantcheck proxy` (the traffic that passed through) each
// build a Verdict from their results; this package decides its exit status
// and writes the console's verdict, summary.json (whose schema is
// summary.schema.json, the same for both drivers), summary.md, report.html,
// junit.xml and badge.svg. Every string in a Verdict that came from a
// target or a client is already redacted, bounded and escaped by the
// driver (package evidence); the writers quote it for their format.
// Verdicts written before (a baseline, diff, compare, merge) are package
// history's.
package verdict

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// SchemaID names the schema summary.json follows (summary.schema.json).
const SchemaID = "https://plantcheck.dev/summary.schema.json"

// Driver is what produced a verdict.
type Driver string

const (
	// Run: the features' scenarios, sent to a target.
	Run Driver = "run"
	// Proxy: the traffic that passed through plantcheck proxy.
	Proxy Driver = "proxy"
)

// Outcome is a rule's, a scenario's or a failure block's result. The four
// outcomes of a check are kept apart: pass, fail (the target broke a
// rule), error (the harness or the network broke), skip (not run); a rule
// that was run but could not be judged is "not judged", never a pass.
type Outcome string

const (
	Pass      Outcome = "pass"
	Fail      Outcome = "fail"
	Error     Outcome = "error"
	Skip      Outcome = "skip"
	NotJudged Outcome = "not judged"
)

// Verdict is one run's or one proxy session's result: the document
// summary.json holds, and the data of every other report. Members that
// only one driver fills are present in both, empty where they do not
// apply (summary.schema.json says which).
type Verdict struct {
	Schema     string `json:"schema"`
	Driver     Driver `json:"driver"`
	Plantcheck struct {
		Version string `json:"version"`
	} `json:"plantcheck"`
	Spec     SpecID     `json:"spec"`
	Features FeaturesID `json:"features"`
	// Target is where the requests went: the URL of POST /plants for run,
	// the upstream for proxy.
	Target    string    `json:"target"`
	Reference bool      `json:"reference"`
	Config    Config    `json:"config"`
	Seed      uint64    `json:"seed"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
	Duration  float64   `json:"durationMs"`
	// Scope is certified (every rule ran), partial (run --tags), traffic
	// (proxy: the rules traffic can show) or none (could not run).
	Scope  string `json:"scope"`
	Status string `json:"status"`
	// Verdict is the verdict's sentence, the console's last line without
	// its "VERDICT: ".
	Verdict     string `json:"verdict"`
	ExitCode    int    `json:"exitCode"`
	Interrupted bool   `json:"interrupted"`
	// LikelyCause names a likely mistake of the setup; Error why a run
	// could not be made at all.
	LikelyCause string `json:"likelyCause"`
	// CommonCause and ToFix are the analysis of the failures the console
	// leads with (Analyze), kept for every report: what most answers
	// share, and what to fix, a line a mistake.
	CommonCause string     `json:"commonCause"`
	ToFix       []string   `json:"toFix"`
	Error       string     `json:"error"`
	Throttling  Throttling `json:"throttling"`
	// Connections is what a run met of connection faults, sent again.
	Connections Connections `json:"connections"`
	Counts      Counts      `json:"counts"`
	// NotJudgedInPart counts the exchanges judged in part, by reason
	// (proxy).
	NotJudgedInPart []Count `json:"notJudgedInPart"`
	Rules           []Rule  `json:"rules"`
	// Failures are the failure blocks: for run one per scenario that
	// failed or erred, for proxy one per rule broken and one per way
	// client requests broke the document.
	Failures  []Block       `json:"failures"`
	Scenarios []Scenario    `json:"scenarios"`
	Client    []ClientGroup `json:"client"`
	// Baseline is what the verdict says of the baseline it was made
	// against (--baseline); absent without one.
	Baseline *BaselineResult `json:"baseline,omitempty"`
	// Strength is the suite's strength as the build that judged carries
	// it (package strength): how many shipped mutants it catches, by
	// rule; absent when the build carries none.
	Strength *strength.Figures `json:"strength,omitempty"`

	// Base is the baseline the driver gives (history.LoadBaseline): Finish marks
	// the failures it knows and decides the exit status against it; not
	// part of summary.json (Baseline says what came of it).
	Base *Baseline `json:"-"`

	// ReportDir is where the report files were written (the console
	// says so); not part of summary.json.
	ReportDir string `json:"-"`
	// TokenFrom says where run's token came from, for the note on the
	// reproductions (Config.Token says it in summary.json).
	TokenFrom string `json:"-"`
	// Command is the command that judged when the driver does not say it
	// (judge, merge), for the statement; not part of summary.json.
	Command string `json:"-"`
}

// SpecID names the OpenAPI document judged by.
type SpecID struct {
	Title   string `json:"title"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// FeaturesID names the features judged with: their digest and scenarios.
type FeaturesID struct {
	SHA256    string `json:"sha256"`
	Scenarios int    `json:"scenarios"`
}

// Config is the configuration the verdict was made with; the token is
// never written, only a word about it.
type Config struct {
	BaseURL       string  `json:"baseURL"`
	Token         string  `json:"token"`
	Timeout       string  `json:"timeout"`
	Tags          string  `json:"tags"`
	Strict        bool    `json:"strict"`
	StrictClients bool    `json:"strictClients"`
	Concurrency   int     `json:"concurrency"`
	Rate          float64 `json:"rate"`
	CACert        string  `json:"caCert"`
	MaxJudgeBytes int64   `json:"maxJudgeBytes"`
	ConfigFile    string  `json:"configFile"`
	// Proxy is the proxy run's requests went through and where it was
	// set ("http://proxy.example:3128 (from HTTPS_PROXY)"), or "none" and
	// why a proxy variable that is set was not used; its credentials
	// redacted. Empty for proxy, which reaches its upstream directly.
	Proxy string `json:"proxy"`
}

// Throttling is what a run met of throttling (429, 503 with Retry-After).
type Throttling struct {
	Answers map[int]int `json:"answers"`
	// PausedMs is the wall-clock time the run was paused; WaitedMs the
	// waits the answers asked for, added up (those of requests in flight
	// at once overlap, so it may be more).
	PausedMs float64 `json:"pausedMs"`
	WaitedMs float64 `json:"waitedMs"`
	// SlowestPace is the slowest pace the run came down to, in requests a
	// second (0: never paced down).
	SlowestPace float64 `json:"slowestPace"`
	Exceeded    string  `json:"exceeded"`
	Summary     string  `json:"summary"`
}

// Connections is what a run met of connections refused, reset or closed
// before any byte of an answer: each such request was sent again on a
// fresh connection, and the bound on requests in flight lowered.
type Connections struct {
	// Faults counts them by kind: reset, closed with no answer, refused.
	Faults map[string]int `json:"faults"`
	// InFlight is the bound on requests in flight when the first came;
	// LowestInFlight the lowest it came down to (0: never lowered).
	InFlight       int `json:"inFlight"`
	LowestInFlight int `json:"lowestInFlight"`
	// Judged counts the requests that met a fault on their last try, alone
	// on a fresh connection: those are failures of the target's.
	Judged  int    `json:"judged"`
	Summary string `json:"summary"`
}

// Counts are the totals: scenarios (run) and exchanges (both), and what
// the proxy saw of the traffic.
type Counts struct {
	Scenarios int `json:"scenarios"`
	Passed    int `json:"passed"`
	Failed    int `json:"failed"`
	Errors    int `json:"errors"`
	NotRun    int `json:"notRun"`
	Exchanges int `json:"exchanges"`
	// Judged are the exchanges of the document's operation judged (proxy),
	// JudgedInPart those of them with a part not judged.
	Judged           int64            `json:"judged"`
	JudgedInPart     int64            `json:"judgedInPart"`
	OutsideDocument  int64            `json:"outsideDocument"`
	ProxyAnswers     map[string]int64 `json:"proxyAnswers"`
	ClientGone       int64            `json:"clientGone"`
	UpstreamBrokeOff int64            `json:"upstreamBrokeOff"`
	// ServerViolations counts the failed judgements of rules (proxy);
	// ClientViolations the requests that broke the document.
	ServerViolations int64 `json:"serverViolations"`
	ClientViolations int64 `json:"clientViolations"`
}

// unanswered counts the exchanges the upstream gave no whole answer to:
// the proxy answered them itself, or the answer broke off (a recording:
// the target refused, reset or closed the connection).
func (c Counts) unanswered() int64 { return c.ownAnswers() + c.UpstreamBrokeOff }

// ownAnswers counts the exchanges the proxy answered itself.
func (c Counts) ownAnswers() (n int64) {
	for _, m := range c.ProxyAnswers {
		n += m
	}
	return n
}

// Count is a reason and how many exchanges it concerns.
type Count struct {
	Reason string `json:"reason"`
	N      int64  `json:"n"`
}

// Rule is one rule of the catalog in a verdict.
type Rule struct {
	ID          rules.RuleID `json:"id"`
	Level       rules.Level  `json:"level"`
	Requirement string       `json:"requirement"`
	Source      string       `json:"source"`
	Outcome     Outcome      `json:"outcome"`
	// Result is the outcome as the console and the reports word it.
	Result string `json:"result"`
	// Scenarios are the rule's scenarios the run selected (run).
	Scenarios int `json:"scenarios"`
	// Judged counts what judged the rule (run: its scenarios that judged
	// it on answers that came; proxy: exchanges that could show it);
	// Passed those that kept it; Failures the failures citing it.
	Judged   int64 `json:"judged"`
	Passed   int64 `json:"passed"`
	Failures int64 `json:"failures"`
	// NotJudgedBecause says why the rule, or some of its scenarios, were
	// not judged.
	NotJudgedBecause string `json:"notJudgedBecause"`
	// Notes are answers noted for open rules, inconclusive scenarios (run).
	Notes []string `json:"notes"`
	// FoundBy names the scenarios of other rules that found it broken (run).
	FoundBy []string `json:"foundBy"`
	// Rerun is the command that runs the rule again (run).
	Rerun string `json:"rerun"`
}

// Block is one failure block: what one scenario broke, or (proxy) one
// rule's failures in the traffic, or one way client requests broke the
// document.
type Block struct {
	// Number is the block's number, from 1, in the one order of the
	// failures (OrderFailures): every report numbers and orders them so.
	Number  int          `json:"number"`
	Heading string       `json:"heading"`
	Rule    rules.RuleID `json:"rule"`
	Level   rules.Level  `json:"level"`
	// Side is "server" (the service broke a rule) or "client" (a request
	// broke the document, proxy).
	Side    string  `json:"side"`
	Outcome Outcome `json:"outcome"`
	// Scenario and Where name the scenario and its place in the features
	// (run).
	Scenario string `json:"scenario"`
	Where    string `json:"where"`
	// Error is why the scenario could not be judged (outcome error).
	Error    string     `json:"error"`
	Evidence []Evidence `json:"evidence"`
	// More counts failures counted but not kept as evidence (proxy).
	More  int64  `json:"more"`
	Rerun string `json:"rerun"`
	// Known: the baseline holds every failure of the block (--baseline).
	Known bool `json:"known,omitempty"`
}

// Evidence is one failure of one rule in one exchange.
type Evidence struct {
	Rule        rules.RuleID `json:"rule"`
	Level       rules.Level  `json:"level"`
	Requirement string       `json:"requirement"`
	Expected    string       `json:"expected"`
	Actual      string       `json:"actual"`
	Details     []string     `json:"details"`
	// Request and Response summarise the exchange on one line each;
	// Reproduce is a curl command that sends the request again, its
	// credentials read from environment variables.
	Request    string           `json:"request"`
	Response   string           `json:"response"`
	Reproduce  string           `json:"reproduce"`
	Violations []spec.Violation `json:"violations"`
	// At is when the proxy saw the exchange (RFC 3339; run: empty).
	At string `json:"at"`
	// Status and MediaType are the answer's status and media type
	// (without parameters; "" for none), NoAnswer what came instead of an
	// answer: the failure's kind of answer (Kind), which a common cause
	// and a baseline are found from, set from the exchange where the
	// failure is made (AnswerOf), never read back from Response.
	Status    int    `json:"status,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	NoAnswer  string `json:"noAnswer,omitempty"`
	// Known: the baseline holds a failure of this kind.
	Known bool `json:"known,omitempty"`
}

// Scenario is one scenario of a run.
type Scenario struct {
	Name      string       `json:"name"`
	Where     string       `json:"where"`
	Rule      rules.RuleID `json:"rule"`
	Level     rules.Level  `json:"level"`
	Outcome   Outcome      `json:"outcome"`
	Duration  float64      `json:"durationMs"`
	Exchanges int          `json:"exchanges"`
	Note      string       `json:"note"`
	Error     string       `json:"error"`
	// Failure is the number of its block in Failures, from 1 (0: none).
	Failure int `json:"failure"`
}

// ClientGroup counts the client requests that broke the document in one
// way: the rule whose refusal they call for ("" for none in particular).
type ClientGroup struct {
	Rule     rules.RuleID `json:"rule"`
	Requests int64        `json:"requests"`
}

// Label names a client group's rule, or OTHER.
func (g ClientGroup) Label() string { return label(g.Rule) }

func label(id rules.RuleID) string { return cmp.Or(string(id), "OTHER") }

// Ms is a duration in milliseconds, as summary.json writes it.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Partial reports whether a run was filtered to some rules: only a run of
// every rule may call itself a certification.
func (v *Verdict) Partial() bool { return v.Config.Tags != "" }

// decides reports whether a rule's failure decides the verdict: a MUST
// rule, and in strict mode a SHOULD rule.
func (v *Verdict) decides(r Rule) bool {
	return r.Level == rules.Must || v.Config.Strict && r.Level == rules.Should
}

// Decide sets the exit status, the status word and the verdict's sentence
// from the rules and counts, for both drivers alike: 1 when a rule that
// decides the verdict failed (or, with --strict-clients, a client broke the
// document); 2 when the run was interrupted, met an error, or could judge
// nothing it should (a MUST rule a run selected; any exchange a proxy
// saw; an exchange of it the upstream gave no whole answer to, which
// traffic cannot judge); 0 otherwise. A proxy that saw no traffic at all
// judged nothing and claims nothing: 0, saying so.
func (v *Verdict) Decide() {
	// The rules that decide the verdict that failed, or (a run's) that were
	// selected but not judged; the SHOULD rules that failed without
	// deciding it. Traffic shows some rules only: Counts.Judged says the
	// rest.
	var deciding, should, unjudged []rules.RuleID
	for _, r := range v.Rules {
		switch {
		case r.Outcome == Fail && v.decides(r):
			deciding = append(deciding, r.ID)
		case r.Outcome == Fail && r.Level == rules.Should:
			should = append(should, r.ID)
		case r.Outcome == NotJudged && v.decides(r) && v.Driver != Proxy:
			unjudged = append(unjudged, r.ID)
		}
	}
	clients := v.Config.StrictClients && v.Counts.ClientViolations > 0
	// A transport fault is no verdict, but traffic the upstream did not
	// answer cannot read green: `run` sends such a request again, and
	// fails it or errs when the fault stays.
	nothing := v.Driver == Proxy && (v.Counts.Judged == 0 && v.Counts.Exchanges > 0 || v.Counts.unanswered() > 0)
	v.ExitCode = v.exitCode(deciding, clients, unjudged, nothing)
	if v.Driver == Proxy {
		v.decideProxy(deciding, should)
	} else {
		v.Status, v.Verdict = v.runStatus(), v.runLine(unjudged)
	}
	v.Baseline = nil
	if v.Base != nil {
		// The baseline changes the exit status, never the status or the
		// sentence's truth: it adds what it made of the failures.
		res, stillUnjudged := v.againstBaseline(deciding, unjudged)
		res.ExitCodeWithout = v.ExitCode
		v.ExitCode = v.exitCode(res.New, clients || len(res.Stale) > 0, stillUnjudged, nothing)
		v.Verdict += res.sentence(v.ExitCode)
		v.Baseline = res
	}
}

// exitCode is the exit status for the rules deciding it that failed;
// failing is another reason for 1 (clients that broke the document, a
// stale baseline entry), but not of an interrupted run.
func (v *Verdict) exitCode(deciding []rules.RuleID, failing bool, unjudged []rules.RuleID, nothing bool) int {
	switch {
	case len(deciding) > 0 || failing && !v.Interrupted:
		return 1
	case v.Interrupted || v.Counts.Errors > 0 || len(unjudged) > 0 || nothing:
		return 2
	}
	return 0
}

// ReferenceTarget is what every report of a run of the bundled reference
// server says where the target goes: such a run certifies plantcheck's own
// server, never a server of the user's, and must not read as if it did.
const ReferenceTarget = "the bundled reference server"

// OnReference marks v, decided, as a run of the bundled reference server
// served at url: the target, the verdict's sentence and the badge say so.
func (v *Verdict) OnReference(url string) {
	v.Reference = true
	v.Target = ReferenceTarget + " (in-process, " + url + ")"
	v.Verdict += " [target: " + ReferenceTarget + ", not a server of yours]"
}

func (v *Verdict) runStatus() string {
	word := "incomplete"
	if v.ExitCode == 1 {
		word = "non-conformant"
	}
	switch {
	case v.Interrupted:
		return "interrupted: " + word
	case v.ExitCode == 0 && v.Partial():
		return "partial: conformant to the rules that ran"
	case v.ExitCode == 0:
		return "certified conformant"
	case v.Partial():
		return "partial: " + word
	}
	return word
}

// failed reports whether a rule of the level failed.
func (v *Verdict) failed(l rules.Level) bool {
	return slices.ContainsFunc(v.Rules, func(r Rule) bool { return r.Level == l && r.Outcome == Fail })
}

func (v *Verdict) runLine(unjudged []rules.RuleID) string {
	scope := ""
	if v.Partial() {
		scope = " (partial: not every rule ran)"
	}
	switch code := v.ExitCode; {
	case v.Interrupted && code == 1:
		return "NON-CONFORMANT, INTERRUPTED: a MUST rule failed before the run was stopped" + scope
	case v.Interrupted:
		return "INTERRUPTED: the run was stopped before every scenario ran (incomplete)" + scope
	case code == 1 && v.LikelyCause != "":
		return "NON-CONFORMANT, or a mistake of the setup: see LIKELY CAUSE above" + scope
	case code == 1 && v.Config.Strict && !v.failed(rules.Must):
		return "NON-CONFORMANT (strict): a SHOULD rule failed; every MUST rule that ran passed" + scope
	case code == 1 && v.Config.Strict && v.failed(rules.Should):
		return "NON-CONFORMANT: a MUST rule failed, and (strict) a SHOULD rule" + scope
	case code == 1:
		return "NON-CONFORMANT: a MUST rule failed" + scope
	case code == 2 && v.Throttling.Exceeded != "":
		return "INCOMPLETE: the target throttled the run past plantcheck's bound: " + v.Throttling.Exceeded + scope
	case code == 2 && len(unjudged) > 0:
		return "INCOMPLETE: not judged: " + rules.JoinIDs(unjudged, ", ") + scope
	case code == 2:
		return "INCOMPLETE: some scenarios could not be judged" + scope
	case v.Partial():
		return "CONFORMANT to the rules that ran" + scope
	default:
		return "CONFORMANT: every MUST rule passed"
	}
}

func (v *Verdict) decideProxy(deciding, should []rules.RuleID) {
	c := v.Counts
	own := c.ownAnswers()
	var notes []string
	if c.Judged > 0 {
		notes = append(notes, Plural(c.Judged, "exchange")+" of POST /plants judged")
	}
	if own > 0 {
		notes = append(notes, fmt.Sprintf("%d answered by the proxy itself (the upstream gave no answer)", own))
	}
	clients := "clients: " + Plural(c.ClientViolations, "request") + " broke the document"
	if !v.Config.StrictClients && c.ClientViolations > 0 {
		clients += " (theirs, not the service's)"
	}
	tail := strings.Join(append(notes, clients), "; ")
	switch {
	case len(deciding) > 0:
		v.Status = "non-conformant"
		v.Verdict = fmt.Sprintf("NON-CONFORMANT: the service broke %s; %s", rules.JoinIDs(deciding, ", "), tail)
	case v.ExitCode == 1:
		v.Status = "clients failed"
		v.Verdict = "CLIENTS FAILED (--strict-clients): no server-side violation; " + tail
	case c.Judged > 0 && c.unanswered() > 0:
		v.Status = "incomplete"
		v.Verdict = fmt.Sprintf("INCOMPLETE: the upstream gave no whole answer to %s of POST /plants (not judged); no violation seen in the rest; %s",
			Plural(c.unanswered(), "exchange"), tail)
	case c.Judged == 0 && c.Exchanges > 0:
		v.Status = "incomplete"
		v.Verdict = fmt.Sprintf("NOTHING JUDGED, INCOMPLETE: no exchange of POST /plants was judged (%s in all); %s", Plural(int64(c.Exchanges), "exchange"), tail)
	case c.Judged == 0:
		v.Status = "nothing judged"
		v.Verdict = "NOTHING JUDGED: no exchange passed through; " + tail
	default:
		v.Status = "no violation seen"
		s := ""
		if len(should) > 0 {
			s = " (SHOULD rules failed: " + rules.JoinIDs(should, ", ") + ")"
		}
		v.Verdict = fmt.Sprintf("NO VIOLATION SEEN%s, as far as traffic shows (rules it cannot show are not judged); %s", s, tail)
	}
}

// Word is a rule's result as the console and the reports show it.
func (v *Verdict) Word(r Rule) string {
	switch r.Outcome {
	case Pass:
		word := "pass"
		if r.Level == rules.Open {
			word = "noted"
		}
		if v.partlyJudged(r) {
			word += fmt.Sprintf(" (%d of %d judged: %s)", r.Judged, r.Scenarios, r.NotJudgedBecause)
		}
		return word
	case Fail:
		if r.Level == rules.Open {
			// An open rule is noted, never failed: what its scenarios
			// met is another rule's failure, or a note.
			return "noted"
		}
		if v.Driver == Proxy {
			return fmt.Sprintf("FAIL (%d of %d)", r.Failures, r.Judged)
		}
		return fmt.Sprintf("FAIL (%d)", r.Failures)
	case Error:
		return "ERROR"
	case NotJudged:
		if len(r.NotJudgedBecause) > maxWhyInTable {
			return "not judged" // the reason follows the table (console) or the requirement (pages)
		}
		return "not judged (" + r.NotJudgedBecause + ")"
	default:
		return "not run"
	}
}

// maxWhyInTable bounds the reason a rule is not judged that the rule
// table holds; a longer one is listed below the table.
const maxWhyInTable = 40

// Finish sets what follows from the rules and counts a driver filled in:
// the schema's id, the decision (Decide) and each rule's result word.
func (v *Verdict) Finish() {
	v.Schema = SchemaID
	v.OrderFailures()
	v.Decide()
	for i := range v.Rules {
		v.Rules[i].Result = v.Word(v.Rules[i])
		if v.Rules[i].Outcome == Fail && v.KnownRule(v.Rules[i].ID) {
			v.Rules[i].Result += " known"
		}
	}
}

// broken are the rules that failed (an open rule is noted, never failed),
// MUST rules first, then SHOULD, each level in catalog order.
func (v *Verdict) broken() []Rule {
	out := slices.DeleteFunc(slices.Clone(v.Rules), func(r Rule) bool { return r.Outcome != Fail || r.Level == rules.Open })
	slices.SortStableFunc(out, func(a, b Rule) int { return levelRank(a.Level) - levelRank(b.Level) })
	return out
}

// levelSummary says how the rules of a level fared, in a few words.
func (v *Verdict) levelSummary(l rules.Level) string {
	n, all := map[Outcome]int{}, 0
	for _, r := range v.Rules {
		if r.Level == l {
			n[r.Outcome]++
			all++
		}
	}
	s := fmt.Sprintf("%d passed, %d failed", n[Pass], n[Fail])
	if other := all - n[Pass] - n[Fail]; other > 0 {
		s += fmt.Sprintf(", %d not run or not judged", other)
	}
	return s
}

// Plural writes a count and a noun, made plural when the count is not 1.
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Upper is a level as the reports show it.
func Upper(l rules.Level) string { return strings.ToUpper(string(l)) }
