package steps

import (
	"net/http"
	"slices"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Sent is one request the suite sent and what came back: the one exchange
// type, with what the suite knows of it besides (its Auth and Token keep
// the user's token out of every rendering). Once judged, RespHeader and
// RespBody are the response as evidence: secrets hidden, cut, escaped.
type Sent struct {
	exchange.Exchange
	Label      string             // what the request is, where the scenario does not say
	issued     bool               // the user's token in the Bearer scheme
	red        *evidence.Redactor // hides the suite's secrets in what it renders
	judged     judge.Outcome      // the one judge's, which the steps and hooks read
	header     http.Header        // the response's as sent, for the steps (cookies)
	Violations []spec.Violation   // the document's findings on the response, bounded and safe
}

// JudgedBy is the one judge's judgement of the exchange by a rule, and
// whether it judged the exchange by that rule at all.
func (x *Sent) JudgedBy(rule rules.RuleID) (judge.Judgement, bool) {
	i := slices.IndexFunc(x.judged.Results, func(r judge.Result) bool { return r.Rule == rule })
	if i < 0 {
		return judge.Judgement{}, false
	}
	return x.judged.Results[i].Judgement, true
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

// Message is the exchange as HTTP messages, the request's target shown as
// target (such as {base_url}/plants).
func (x *Sent) Message(target string) (request, response string) {
	e := x.Exchange
	e.Target = target
	return e.Message(x.red)
}

// Curl returns a curl command that sends the same request, every secret
// read from a variable (exchange.Exchange.Curl).
func (x *Sent) Curl() string { return x.Exchange.Curl(x.red) }
