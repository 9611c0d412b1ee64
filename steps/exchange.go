package steps

import (
	"net/http"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Sent is one request the suite sent and what came back: the one
// exchange type (package exchange), which the judge judged, with what the
// suite knows of it besides. Its Auth describes the Authorization header
// sent ("Bearer <token>"), so that no rendering shows the user's token;
// its Token is the token where the request carried it outside that
// header, which URL shows as evidence.TokenMark. Once judged, RespHeader
// and RespBody are the response as evidence: every secret hidden, then cut
// to a bound (RespTotal is the body's length as sent), header values
// escaped.
type Sent struct {
	exchange.Exchange
	// Label says what the request is, where the scenario does not (a
	// generated case, a presentation of a valid request).
	Label string
	// issued: the request carried the user's token in the Bearer scheme.
	issued bool
	// red hides the suite's secrets in what the exchange renders.
	red *evidence.Redactor
	// judged is the one judge's outcome of the exchange (package judge),
	// when an answer came: what the steps and the after-hooks read.
	judged judge.Outcome
	// header is the response's header as the target sent it, which the
	// steps read (its cookies) until the scenario is over.
	header http.Header
	// Violations are the document's findings on the response, bounded and
	// made safe.
	Violations []spec.Violation
}

// JudgedBy is the one judge's judgement of the exchange by a rule, and
// whether it judged the exchange by that rule at all.
func (x *Sent) JudgedBy(rule rules.RuleID) (judge.Judgement, bool) {
	for _, r := range x.judged.Results {
		if r.Rule == rule {
			return r.Judgement, true
		}
	}
	return judge.Judgement{}, false
}

// Issued reports whether the request carried the user's token in the
// Bearer scheme.
func (x *Sent) Issued() bool { return x.issued }

// Answered reports whether a whole answer came.
func (x *Sent) Answered() bool { return x.Err == nil && x.Status != 0 }

// RequestLine summarises the request on one line.
func (x *Sent) RequestLine() string { return x.Exchange.RequestLine(x.red) }

// ResponseLine summarises the response on one line.
func (x *Sent) ResponseLine() string { return x.Exchange.ResponseLine(x.red) }

// Message is the exchange as HTTP messages (exchange.Exchange.Message),
// the request's target shown as target (a base address written for the
// reader, such as {base_url}/plants).
func (x *Sent) Message(target string) (request, response string) {
	e := x.Exchange
	e.Target = target
	return e.Message(x.red)
}

// Curl returns a paste-ready curl command that sends the same request, the
// user's token read from $PLANTCHECK_TOKEN, every other secret from a
// variable of its own.
func (x *Sent) Curl() string { return x.Exchange.Curl(x.red) }
