package proxy

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/spec"
)

// Every exchange of the document's one operation (POST /plants) is judged
// by every rule its traffic can show, with the judgements `plantcheck run`
// makes (package check, the validator of package spec). The rules traffic
// cannot show are listed with the reason, never as passed.

// operation is the document's one operation, the only one the proxy judges:
// the spec leaves other paths and methods "not shown", so they are
// forwarded and counted, never judged.
const (
	opMethod = http.MethodPost
	opPath   = "/plants"
)

// judgedRules are the rules the proxy judges from traffic.
var judgedRules = []rules.RuleID{
	rules.ResponseDocumented, rules.ResponseMedia, rules.ErrorRecord,
	rules.CreateName, rules.CreateTag, rules.CreateNoTag, rules.CreateNoID,
	rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty,
	rules.MediaRequest,
	rules.BodyJSON, rules.BodyObject, rules.BodyIDRequired, rules.BodyIDInteger, rules.BodyIDInt64,
	rules.BodyNameRequired, rules.BodyNameString, rules.BodyTagString,
	rules.GenInvalid,
}

// The reasons a rule cannot be judged from traffic.
const (
	whyTokens  = "the proxy does not know which tokens the service issued"
	whyRefusal = "a refusal of a valid request may be for a token the service did not issue, or an id it already stores (which the spec leaves open): traffic cannot tell them from a wrongful refusal"
	whyOpen    = "the spec leaves it open: noted by `plantcheck run`, never failed"
)

// unjudgeable are the rules traffic cannot show, each with the reason.
var unjudgeable = map[rules.RuleID]string{
	rules.Create200:          whyRefusal,
	rules.BodyIDRange:        whyRefusal,
	rules.BodyNameAny:        whyRefusal,
	rules.BodyTagAny:         whyRefusal,
	rules.BodyExtraFields:    whyRefusal,
	rules.MediaRequestParams: whyRefusal,
	rules.GenValid:           "it judges bodies the suite generates; the clients' accepted bodies are judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG",
	rules.GenBoundary:        "it judges bodies the suite generates; the clients' accepted bodies are judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG",
	rules.AuthNearMiss:       whyTokens,
	rules.AuthUnknown:        whyTokens,
	rules.ResponseTimely:     "a time limit is the suite's to set; an upstream that does not answer within --timeout gets the proxy's own 502, counted apart and never as the service's",
	rules.OpenReusedID:       whyOpen,
	rules.OpenJSONReader:     whyOpen,
	rules.OpenIntegralID:     whyOpen,
}

// whyNone is the reason of a judged rule that no exchange could show.
const whyNone = "no exchange that could show it passed through"

// result is one rule's judgement of one exchange.
type result struct {
	rule rules.RuleID
	check.Judgement
}

// outcome is the judgement of one exchange.
type outcome struct {
	results []result
	buf     [10]result // results' first home: one allocation fewer
	// client: the request broke the document; violations says how and
	// defects what it exercises ("" rule: a departure RFC 8259 leaves open).
	client     bool
	violations []spec.Violation
	defects    []defect
	// unjudged says what could not be judged, and why ("" when all was).
	unjudged []string
}

func (o *outcome) add(rule rules.RuleID, j check.Judgement) {
	o.results = append(o.results, result{rule, j})
}

// failed reports whether a rule failed in this exchange.
func (o *outcome) failed(rule rules.RuleID) (check.Judgement, bool) {
	for _, r := range o.results {
		if r.rule == rule && !r.OK() {
			return r.Judgement, true
		}
	}
	return check.Judgement{}, false
}

// judge judges one finished exchange. redact (nil: none) hides secrets in
// what the judgements quote: the first pass runs without it, and only an
// exchange whose failure is kept as evidence is judged again with it.
func (h *Handler) judge(x *exchange, redact func(string) string) *outcome {
	o := &outcome{}
	h.judgeInto(o, x, redact)
	return o
}

// outcomes are the outcomes of the exchanges being judged, reused.
var outcomes = sync.Pool{New: func() any { return new(outcome) }}

// judgeInto judges x into o, which it resets first.
func (h *Handler) judgeInto(o *outcome, x *exchange, redact func(string) string) {
	*o = outcome{}
	o.results = o.buf[:0]
	req, resp := x.reqBody, x.respBody
	if !req.whole {
		o.unjudged = append(o.unjudged, req.why)
	}
	if !resp.whole {
		o.unjudged = append(o.unjudged, resp.why)
	}
	var reqBody []byte
	if req.whole {
		reqBody = req.body
	}
	sreq := spec.Request{Method: x.method, Path: opPath, Header: x.header, Body: reqBody}

	// The document's verdict on the request, when its body is known whole.
	known, valid := req.whole, false
	if known {
		if x.header.Get("Content-Type") == "application/json" && !hasAuthDefect(x.header) {
			// BodyConforms gives CheckRequest's verdict on such a
			// request at a fraction of its cost; CheckRequest says why,
			// if need be.
			valid = h.validator.BodyConforms(opMethod, opPath, reqBody)
		}
		if !valid {
			o.violations = h.validator.CheckRequest(sreq)
			valid = len(o.violations) == 0
		}
	}

	// What a refused request exercises, each a rule whose refusal is due.
	if d, ok := authDefect(x.header); ok && (!known || !valid) {
		o.defects = append(o.defects, d)
	}
	open := ""
	if known && !valid {
		o.client = true
		if d, ok := mediaDefect(x.header); ok {
			o.defects = append(o.defects, d)
		}
		var ds []defect
		ds, open = bodyDefects(reqBody)
		o.defects = append(o.defects, ds...)
		if len(o.defects) == 0 && open == "" {
			// A refusal the catalog has no rule for (the document gained
			// a constraint since): the suite's general rule, as its
			// generated cases count it.
			o.defects = append(o.defects, defect{rules.GenInvalid, "the document refuses the request: " + firstMessage(o.violations)})
		}
	}
	for _, d := range o.defects {
		j := check.Judgement{Expected: "status 400 with an Error record (" + d.what + ")"}
		if x.status != http.StatusBadRequest {
			j.Actual = fmt.Sprintf("status %d", x.status)
		}
		o.add(d.rule, j)
	}
	if open != "" {
		o.defects = append(o.defects, defect{"", open})
	}

	// The answer.
	o.add(rules.ResponseMedia, check.MediaTypeJSON(x.respHeader.Get("Content-Type"), redact))
	if !resp.whole {
		return
	}
	vs := h.validator.CheckResponse(sreq, spec.Response{Status: x.status, Header: x.respHeader, Body: resp.body})
	o.add(rules.ResponseDocumented, check.Documented(vs))
	switch x.status {
	case http.StatusBadRequest:
		o.add(rules.ErrorRecord, check.ErrorRecord(resp.body, redact))
	case http.StatusOK:
		// A Plant record (which the document's verdict says, when it has
		// nothing to say) is judged for an id; another body is the
		// document's to fail.
		switch {
		case !bytes.Contains(resp.body, []byte(`"id"`)) && !bytes.Contains(resp.body, []byte(`\u`)) && len(vs) == 0:
			// No member is named id, however it is read: nothing to decode.
			o.add(rules.CreateNoID, check.Judgement{Expected: "no id property"})
		case len(vs) == 0 || check.PlantRecord(resp.body, nil).OK():
			o.add(rules.CreateNoID, check.NoID(resp.body, redact))
		}
		if known && valid {
			h.judgeEcho(o, reqBody, resp.body, redact)
		}
	}
}

// judgeEcho judges the Plant record of an accepted create against the
// plant sent: the very name, the very tag, no tag when none was sent.
func (h *Handler) judgeEcho(o *outcome, sentBody, answer []byte, redact func(string) string) {
	sent := check.ReadSent(sentBody)
	if sent.Unjudged != "" {
		o.unjudged = append(o.unjudged, "echo not judged: "+sent.Unjudged)
		return
	}
	if !sent.HasName {
		return // the document accepted it, so this cannot be
	}
	fails := check.Echo(sent, answer, redact)
	for _, rule := range echoRules(sent.HasTag) {
		j := check.Judgement{Expected: echoExpected}
		for _, f := range fails {
			if f.Rule == rule {
				j = check.Judgement{Expected: f.Expected, Actual: f.Actual}
				break
			}
		}
		o.add(rule, j)
	}
}

// echoExpected is what a passed echo judgement expected.
const echoExpected = "the Plant record echoes the plant sent"

// echoRules are the rules an accepted create's echo is judged by: the
// name's, and the tag's or its absence's.
func echoRules(hasTag bool) [2]rules.RuleID {
	if hasTag {
		return [2]rules.RuleID{check.RuleName, check.RuleTag}
	}
	return [2]rules.RuleID{check.RuleName, check.RuleNoTag}
}

func hasAuthDefect(h http.Header) bool {
	_, bad := authDefect(h)
	return bad
}

func firstMessage(vs []spec.Violation) string {
	if len(vs) == 0 {
		return "(no message)"
	}
	return vs[0].String()
}

// details are a judgement's further lines for a failure: the document's
// messages, for RESPONSE-DOCUMENTED.
func details(j check.Judgement) []string {
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
func ruleLabel(d defect) string {
	if d.rule == "" {
		return string(rules.OpenJSONReader)
	}
	return string(d.rule)
}

// joinWhy writes the reasons a part of an exchange was not judged.
func joinWhy(why []string) string { return strings.Join(why, "; ") }
