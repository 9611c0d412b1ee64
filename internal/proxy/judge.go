package proxy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Every exchange of the document's one operation (POST /plants) is judged
// by every rule its traffic can show, with the judgements `plantcheck run`
// makes (package check, the validator of package spec). The rules traffic
// cannot show are listed with the reason, never as passed.

// operation is the document's one operation, the only one the proxy judges:
// the spec leaves other paths and methods "not shown", so they are
// forwarded and counted, never judged.
const (
	opMethod = judge.OpMethod
	opPath   = judge.OpPath
)

// whyNone is the reason of a judged rule that no exchange could show.
const whyNone = "no exchange that could show it passed through"

// failedIn reports whether a rule failed in a judged exchange, and how.
func failedIn(o *judge.Outcome, rule rules.RuleID) (judge.Judgement, bool) {
	for _, r := range o.Results {
		if r.Rule == rule && !r.OK() {
			return r.Judgement, true
		}
	}
	return judge.Judgement{}, false
}

// judge judges one finished exchange with package judge. redact (nil:
// none) hides secrets in what the judgements quote: the first pass runs
// without it, and only an exchange whose failure is kept as evidence is
// judged again with it.
func (h *Handler) judge(x *flight, redact func(string) string) *judge.Outcome {
	e := x.exchange()
	o := judge.Judge(h.validator, &e, judge.Sender{}, redact)
	// A rule traffic shows only in part (CREATE-200: the record of an
	// accepted create, never why a valid create was refused) is the
	// suite's to judge: here it stays not judged, never passed.
	o.Results = slices.DeleteFunc(o.Results, func(r judge.Result) bool { return !fromTraffic[r.Rule] })
	return &o
}

// fromTraffic are the rules the proxy judges (judge.FromTraffic).
var fromTraffic = func() map[rules.RuleID]bool {
	m := map[rules.RuleID]bool{}
	for _, id := range judge.FromTraffic {
		m[id] = true
	}
	return m
}()

// defects are the ways a client's request breaks the document (the
// judge's refusal), a departure RFC 8259 leaves open last.
func defects(o *judge.Outcome) []defect {
	var out []defect
	for _, d := range o.Refusal.Defects {
		out = append(out, defect{d.Rule, d.What})
	}
	if o.Refusal.Open != "" {
		out = append(out, defect{"", o.Refusal.Open})
	}
	return out
}

// defect is one way a client's request breaks the document (a
// judge.Defect), or, with no rule, a departure RFC 8259 leaves open.
type defect struct {
	rule rules.RuleID
	what string
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

// ruleLabel names a rule for a client-side group: its ID, or what RFC
// 8259 leaves open.
func ruleLabel(d defect) rules.RuleID {
	if d.rule == "" {
		return rules.OpenJSONReader
	}
	return d.rule
}

// joinWhy writes the reasons a part of an exchange was not judged.
func joinWhy(why []string) string { return strings.Join(why, "; ") }
