package proxy

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// whyNone is the reason of a judged rule that no exchange could show.
const whyNone = "no exchange that could show it passed through"

// maxFailures is how many failures of each rule are kept (the rest are
// counted); evidence.MaxText and MaxDetails bound each one.
const maxFailures = 5

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

// judging judges each finished exchange into the tally, the evidence and
// the events, and remembers the secrets seen: the proxy's (Handler) and
// plantcheck judge's (JudgeFiles).
type judging struct {
	validator *spec.Validator
	tally     *verdict.Tally
	secrets   evidence.Set
	events    *eventLog // nil: none
}

func newJudging() (*judging, error) {
	v, err := spec.Default()
	if err != nil {
		return nil, fmt.Errorf("build the validator: %w", err)
	}
	t := verdict.NewTrafficTally(maxFailures)
	for _, r := range rules.Catalog {
		t.NoVerdict(r.ID, cmp.Or(judge.NotFromTraffic[r.ID], whyNone))
	}
	return &judging{validator: v, tally: t}, nil
}

// judge judges one exchange with package judge; redact (nil: none) hides
// secrets in what the judgements quote.
func (j *judging) judge(e *exchange.Exchange, redact func(string) string) *judge.Outcome {
	o := judge.Judge(j.validator, e, judge.Sender{}, redact)
	// A rule traffic shows only in part (CREATE-200: the record of an
	// accepted create, never why a valid create was refused) is the
	// suite's to judge: here it stays not judged, never passed.
	o.Results = slices.DeleteFunc(o.Results, func(r judge.Result) bool { return !slices.Contains(judge.FromTraffic, r.Rule) })
	return &o
}

// count judges one exchange into the tally, with why further parts of it
// were not judged; own is the kind of the proxy's own answer its client got
// in the service's place ("": none). Each failure is an event, and those
// with room are kept as evidence.
func (j *judging) count(e *exchange.Exchange, unjudged []string, own string) {
	secrets := e.Secrets(false)
	j.secrets.Add(secrets...)
	// The redactor, made when a judgement first quotes the exchange, hides
	// its body's secrets too (looked for only then: most exchanges quote
	// nothing), which are remembered only when its evidence is kept.
	var red *evidence.Redactor
	redactor := func() *evidence.Redactor {
		if red == nil {
			secrets = exchange.BodySecrets(e.Body, secrets)
			red = j.secrets.Redactor(secrets)
		}
		return red
	}
	o := j.judge(e, func(s string) string { return redactor().String(s) })
	c := verdict.Judged{Unjudged: append(o.Unjudged, unjudged...), Own: own}
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
	if len(keep) == 0 && (j.events == nil || len(c.Failed) == 0 && !o.Client) {
		return
	}

	// Evidence, and events, made as every report's: redacted, cut, escaped.
	red = redactor()
	j.secrets.Add(secrets...)
	at := time.Now().UTC()
	shown := verdict.Evidence{Request: e.RequestLine(red), Response: e.ResponseLine(red), Reproduce: e.Curl(red), At: at.Format(time.RFC3339Nano)}
	shown.AnswerOf(e)
	failure := func(rule rules.RuleID, side, expected, actual string, details []string) verdict.Evidence {
		f := shown
		f.Rule, f.Expected, f.Actual = rule, red.Safe(expected, evidence.MaxText), red.Safe(actual, evidence.MaxText)
		if r, ok := rules.Lookup(rule); ok && side == "server" {
			f.Level, f.Requirement = r.Level, r.Requirement
		}
		if len(details) > evidence.MaxDetails {
			details = append(details[:evidence.MaxDetails:evidence.MaxDetails], fmt.Sprintf("and %d more", len(details)-evidence.MaxDetails))
		}
		for _, d := range details {
			f.Details = append(f.Details, red.Safe(d, evidence.MaxText))
		}
		return f
	}
	server := func(rule rules.RuleID) verdict.Evidence {
		f := o.Results[slices.IndexFunc(o.Results, func(r judge.Result) bool { return r.Rule == rule && !r.OK() })]
		return failure(rule, "server", f.Expected, f.Actual, f.Details)
	}
	// For a client's request, Rule is the rule whose refusal it calls for,
	// which the reports do not cite.
	client := func(g judge.Defect) verdict.Evidence {
		var ds []string
		for _, v := range o.Violations {
			ds = append(ds, v.String())
		}
		return failure(g.Rule, "client", "a request the document accepts", g.What, ds)
	}
	if j.events != nil {
		for _, rule := range c.Failed {
			j.events.write(eventOf(server(rule), "server", e.Status, at))
		}
		for _, g := range groups {
			j.events.write(eventOf(client(g), "client", e.Status, at))
		}
	}
	for _, s := range keep {
		if s.Side == "server" {
			j.tally.Keep(s, server(s.Rule))
			continue
		}
		for _, g := range groups {
			if g.Rule == s.Rule {
				j.tally.Keep(s, client(g))
			}
		}
	}
}

// clientGroups are the ways a request breaks the document (the judge's
// refusal, which names at least one), one for each group, the first of it:
// the rule whose refusal it calls for, OPEN-JSON-READER for a departure RFC
// 8259 leaves open.
func clientGroups(o *judge.Outcome) []judge.Defect {
	ds := o.Refusal.Defects
	if o.Refusal.Open != "" {
		ds = append(slices.Clip(ds), judge.Defect{Rule: rules.OpenJSONReader, What: o.Refusal.Open})
	}
	var out []judge.Defect
	for _, d := range ds {
		if !slices.ContainsFunc(out, func(g judge.Defect) bool { return g.Rule == d.Rule }) {
			out = append(out, d)
		}
	}
	return out
}

// writeHAR writes one exchange to the HAR file (Config.HAR), its secrets
// hidden by the proxy's memory of them, as in every report: the bodies of
// POST /plants as kept for judging, up to har.MaxBody (a longer one cut and
// marked), the others' headers alone (bodies: false; they are never kept).
func (h *Handler) writeHAR(x *flight, bodies bool) {
	rec := har.Record{Exchange: x.Exchange, Started: x.start, NotKept: !bodies}
	if x.Err != nil {
		// As `run --har` records an answer its client could not frame.
		rec.Comment = har.NoAnswer + x.Err.Error()
	}
	if !bodies {
		rec.BodyTotal, rec.RespTotal = -1, -1
	}
	own := rec.Secrets(true)
	h.secrets.Add(own...)
	h.har.Add(har.NewEntry(rec, har.NewHider("", h.secrets.Redactor(own)), min(h.maxJudge, har.MaxBody)))
}

// verdict is the verdict on what was counted so far, every secret seen by
// now hidden in every piece of evidence, whichever exchange brought it.
func (j *judging) verdict(opts Options, target string, started, ended time.Time, timeout string, maxJudge int64) *verdict.Verdict {
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
	j.tally.Traffic(v, j.secrets.Redactor(nil).String)
	for i := range v.NotJudgedInPart {
		v.NotJudgedInPart[i].Reason = evidence.Text(v.NotJudgedInPart[i].Reason)
	}
	v.Base = opts.Baseline
	v.Finish()
	return v
}
