package proxy

import (
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Every exchange of the document's one operation (POST /plants) is judged
// by every rule its traffic can show, with the judgements `plantcheck run`
// makes (package judge, the validator of package spec), and counted into
// the one tally (verdict.Tally), whether it passed through the proxy or a
// recording holds it. The rules traffic cannot show are listed with the
// reason, never as passed.

// operation is the document's one operation, the only one judged: the
// spec leaves other paths and methods "not shown", so they are forwarded
// and counted, never judged.
const (
	opMethod = judge.OpMethod
	opPath   = judge.OpPath
)

// whyNone is the reason of a judged rule that no exchange could show.
const whyNone = "no exchange that could show it passed through"

// Options are the choices that turn the tally into an exit status.
type Options struct {
	// Strict: a failed SHOULD rule fails the verdict too.
	Strict bool
	// StrictClients: a request that broke the document fails the verdict
	// too (by default it is reported, not failed: it is the client's).
	StrictClients bool
	// Baseline, when set, is the earlier verdict whose failures are known
	// (--baseline): the exit status is decided against it.
	Baseline *verdict.Baseline
}

// judging turns each finished exchange into the tally: it judges it,
// counts it, makes the evidence of the failures kept and the events, and
// remembers the secrets seen. The proxy (Handler) and plantcheck judge
// (JudgeFiles) each have one.
type judging struct {
	validator *spec.Validator
	tally     *verdict.Tally
	secrets   evidence.Set
	// events logs failed judgements (nil: none).
	events *eventLog
}

// newJudging returns a judging by v (nil: spec.Default()) that keeps
// maxFailures failures of each rule as evidence (0: DefaultMaxFailures).
func newJudging(v *spec.Validator, maxFailures int) (*judging, error) {
	if v == nil {
		var err error
		if v, err = spec.Default(); err != nil {
			return nil, fmt.Errorf("build the validator: %w", err)
		}
	}
	if maxFailures <= 0 {
		maxFailures = DefaultMaxFailures
	}
	t := verdict.NewTrafficTally(maxFailures)
	for _, r := range rules.Catalog {
		why, no := judge.NotFromTraffic[r.ID]
		if !no {
			why = whyNone
		}
		t.NoVerdict(r.ID, why)
	}
	return &judging{validator: v, tally: t}, nil
}

// judge judges one exchange with package judge. redact (nil: none) hides
// secrets in what the judgements quote: the first pass runs without it,
// and only an exchange whose failure is kept as evidence is judged again
// with it.
func (j *judging) judge(e *exchange.Exchange, redact func(string) string) *judge.Outcome {
	o := judge.Judge(j.validator, e, judge.Sender{}, redact)
	// A rule traffic shows only in part (CREATE-200: the record of an
	// accepted create, never why a valid create was refused) is the
	// suite's to judge: here it stays not judged, never passed.
	o.Results = slices.DeleteFunc(o.Results, func(r judge.Result) bool { return !fromTraffic[r.Rule] })
	return &o
}

// fromTraffic are the rules traffic can show (judge.FromTraffic).
var fromTraffic = func() map[rules.RuleID]bool {
	m := map[rules.RuleID]bool{}
	for _, id := range judge.FromTraffic {
		m[id] = true
	}
	return m
}()

// count judges one exchange and counts it into the tally, with why further
// parts of it were not judged; own is the kind of the proxy's own answer
// its client got in the service's place ("": none). The failures with room
// are kept as evidence, and each failure is an event.
func (j *judging) count(e *exchange.Exchange, unjudged []string, own string) {
	o := j.judge(e, nil)
	o.Unjudged = append(o.Unjudged, unjudged...)
	rawQuery := ""
	if u, err := url.Parse(e.URL); err == nil {
		rawQuery = u.RawQuery
	}
	secrets := exchange.QuerySecrets(rawQuery, exchange.HeaderSecrets(e.RespHeader, exchange.HeaderSecrets(e.Header, nil)))
	j.secrets.Add(secrets...)
	c := verdict.Judged{Unjudged: o.Unjudged, Own: own}
	for _, r := range o.Results {
		if r.OK() {
			c.Passed = append(c.Passed, r.Rule)
		} else {
			c.Failed = append(c.Failed, r.Rule)
		}
	}
	var groups []judge.Defect
	if o.Client {
		groups = clientGroups(o)
		for _, g := range groups {
			c.Client = append(c.Client, g.Rule)
		}
	}
	keep := j.tally.Exchange(c)
	logged := j.events != nil && (len(c.Failed) > 0 || o.Client)
	if len(keep) == 0 && !logged {
		return
	}

	// Evidence: the exchange judged again with every secret hidden, those
	// of its body too (looked for only here: most exchanges keep none).
	secrets = exchange.BodySecrets(e.Body, secrets)
	j.secrets.Add(secrets...)
	red := j.secrets.Redactor(secrets)
	again := j.judge(e, red.String)
	server := func(rule rules.RuleID, detail bool) verdict.Evidence {
		f, ok := failedIn(again, rule)
		if !ok {
			f, _ = failedIn(o, rule)
		}
		var ds []string
		if detail {
			ds = details(f)
		}
		return j.failure(e, red, "server", rule, f.Expected, f.Actual, ds)
	}
	client := func(g judge.Defect, detail bool) verdict.Evidence {
		var ds []string
		if detail {
			ds = violationLines(o.Violations)
		}
		return j.failure(e, red, "client", g.Rule, "a request the document accepts", g.What, ds)
	}
	if logged {
		// One event for each server-side rule broken, and each way the
		// request broke the document, made by the code that makes the
		// reports' evidence, with the same redaction.
		for _, rule := range c.Failed {
			j.events.write(eventOf(server(rule, false), "server", e.Status))
		}
		for _, g := range groups {
			j.events.write(eventOf(client(g, false), "client", e.Status))
		}
	}
	for _, s := range keep {
		if s.Side == "server" {
			j.tally.Keep(s, server(s.Rule, true))
			continue
		}
		for _, g := range groups {
			if g.Rule == s.Rule {
				j.tally.Keep(s, client(g, true))
			}
		}
	}
}

// failedIn reports whether a rule failed in a judged exchange, and how.
func failedIn(o *judge.Outcome, rule rules.RuleID) (judge.Judgement, bool) {
	for _, r := range o.Results {
		if r.Rule == rule && !r.OK() {
			return r.Judgement, true
		}
	}
	return judge.Judgement{}, false
}

// clientGroups are the ways a request breaks the document (the judge's
// refusal), one for each group, the first of it: the rule whose refusal it
// calls for, OPEN-JSON-READER for a departure RFC 8259 leaves open, ""
// (OTHER) for none in particular.
func clientGroups(o *judge.Outcome) []judge.Defect {
	var out []judge.Defect
	add := func(d judge.Defect) {
		if d.Rule == "" {
			d.Rule = rules.OpenJSONReader
		}
		if !slices.ContainsFunc(out, func(g judge.Defect) bool { return g.Rule == d.Rule }) {
			out = append(out, d)
		}
	}
	for _, d := range o.Refusal.Defects {
		add(d)
	}
	if o.Refusal.Open != "" {
		add(judge.Defect{What: o.Refusal.Open})
	}
	if len(out) == 0 {
		out = []judge.Defect{{What: "the request breaks the document"}}
	}
	return out
}

// details are a judgement's further lines for a failure: the document's
// messages, for RESPONSE-DOCUMENTED.
func details(j judge.Judgement) []string {
	if len(j.Details) > maxDetails {
		more := len(j.Details) - maxDetails
		return append(j.Details[:maxDetails:maxDetails], fmt.Sprintf("and %d more", more))
	}
	return j.Details
}

// maxDetails bounds the messages kept with one failure.
const maxDetails = 16

// violationLines writes the document's messages about a request.
func violationLines(vs []spec.Violation) []string {
	out := make([]string, 0, min(len(vs), maxDetails+1))
	for i, v := range vs {
		if i == maxDetails {
			out = append(out, fmt.Sprintf("and %d more", len(vs)-maxDetails))
			break
		}
		out = append(out, v.String())
	}
	return out
}

// verdict is the verdict on what was counted so far, in the shape every
// plantcheck report is written from (verdict.Tally's Traffic), every
// secret seen by now hidden in every piece of evidence, whichever exchange
// brought it. verdict.Finish gives its exit status, as it does run's.
func (j *judging) verdict(opts Options, target string, started, ended time.Time, timeout string, maxJudge int64) *verdict.Verdict {
	red := j.secrets.Redactor(nil)
	target = evidence.Text(target)
	v := &verdict.Verdict{
		Driver: verdict.Proxy, Target: target, Started: started, Ended: ended, Scope: "traffic",
		Duration: verdict.Ms(ended.Sub(started)),
		Config: verdict.Config{
			BaseURL: target, Token: "<never kept: requests show Bearer <credential>>", Timeout: timeout,
			Strict: opts.Strict, StrictClients: opts.StrictClients, MaxJudgeBytes: maxJudge,
		},
	}
	v.Stamp(j.validator.Info().Title, j.validator.Info().Version)
	j.tally.Traffic(v, red.String)
	for i := range v.NotJudgedInPart {
		v.NotJudgedInPart[i].Reason = evidence.Text(v.NotJudgedInPart[i].Reason)
	}
	v.Base = opts.Baseline
	v.Finish()
	return v
}
