package proxy

import (
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// evidenceText bounds an expected or actual value, a detail, of one
// failure.
const evidenceText = 2 << 10

// failure makes the evidence of one failure of e: every string
// redacted with red, cut, and escaped; the request line, the response line
// and the reproduction are package exchange's. Rule is the rule broken;
// for a client's request (side "client"), the rule whose refusal it calls
// for ("" for none in particular), which the reports do not cite
// (verdict.Tally's Traffic).
func (j *judging) failure(e *exchange.Exchange, red *evidence.Redactor, side string, rule rules.RuleID, expected, actual string, ds []string) verdict.Evidence {
	f := verdict.Evidence{
		Rule:      rule,
		Expected:  red.Safe(expected, evidenceText),
		Actual:    red.Safe(actual, evidenceText),
		Request:   e.RequestLine(red),
		Response:  e.ResponseLine(red),
		Reproduce: e.Curl(red),
		At:        time.Now().UTC().Format(time.RFC3339Nano),
	}
	f.AnswerOf(e)
	if r, ok := rules.Lookup(rule); ok && side == "server" {
		f.Level, f.Requirement = r.Level, r.Requirement
	}
	for _, d := range ds {
		f.Details = append(f.Details, red.Safe(d, evidenceText))
	}
	return f
}

// exchange is the flight as package exchange has it, which the judge
// judges and the evidence renders: a reproduction goes straight to the
// upstream.
func (x *flight) exchange() exchange.Exchange {
	return exchange.Exchange{
		Method: x.method, Target: x.target, URL: x.to.Scheme + "://" + x.to.Host + x.to.RequestURI(),
		Header: x.header, Body: x.reqBody.body, BodyTotal: x.reqBody.total, BodyIncomplete: x.reqBody.why, Chunked: x.chunked,
		Status: x.status, RespHeader: x.respHeader, RespBody: x.respBody.body, RespTotal: x.respBody.total, RespIncomplete: x.respBody.why,
		Duration: x.duration, Err: x.err,
	}
}
