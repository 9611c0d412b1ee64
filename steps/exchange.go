package steps

import (
	"net/http"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/judge"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Exchange is one request the suite sent and what came back, as evidence.
// Nothing in it holds the user's token: the Authorization header is kept as
// a description ("Bearer <token>").
type Exchange struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Auth describes the Authorization header sent, without any secret.
	Auth string `json:"authorization,omitempty"`
	// authShell is the Authorization value for a shell, the user's token
	// written as $PLANTCHECK_TOKEN.
	authShell   string
	ContentType string `json:"contentType,omitempty"`
	// Accept is the Accept header sent ("" when none was).
	Accept string `json:"accept,omitempty"`
	// Chunked: the body went in chunks, without a Content-Length.
	Chunked bool `json:"chunked,omitempty"`
	// NoUserAgent: no User-Agent was sent (else "plantcheck" was).
	NoUserAgent bool `json:"noUserAgent,omitempty"`
	// Cookies is how many cookies the request sent back to the service
	// (their values, a session's credentials, are never kept).
	Cookies int `json:"cookies,omitempty"`
	// token is the user's token where the request carried it instead of
	// its Authorization header ("" when it did not), which URL never holds
	// (it shows tokenMark) and the evidence never shows.
	token string
	// Label says what the request is, where the scenario does not (a
	// generated case, a presentation of a valid request).
	Label     string `json:"label,omitempty"`
	Body      []byte `json:"-"`
	reqHeader http.Header
	// issued: the request carried the user's token in the Bearer scheme.
	issued bool
	// extra names the extra headers sent, whose values are secrets.
	extra []string
	// curlFlags are the connection's settings for a reproduction.
	curlFlags []string
	// red hides the suite's secrets in what the exchange renders.
	red *evidence.Redactor
	// conforms: the document is known to accept the request's body (a
	// generated case checked before it was sent), so it is not checked again.
	conforms bool
	// judged is the one judge's outcome of the exchange (package judge),
	// when an answer came: what the after-hooks read.
	judged judge.Outcome

	Status int `json:"status,omitempty"`
	// RespHeader and RespBody are the response as evidence: every secret
	// hidden, then cut to a bound (RespBodyLen is the body's length as
	// sent), header values escaped.
	RespHeader  http.Header `json:"-"`
	RespBody    []byte      `json:"-"`
	RespBodyLen int         `json:"-"`
	// header and body are the response as the target sent it, which the
	// steps judge (a short token may well occur in an honest answer).
	header http.Header
	body   []byte

	// exercises reads the rules the request exercises (Exercises), once
	// its scenario is over.
	exercises func(*Exchange) []rules.RuleID

	Duration   time.Duration    `json:"durationNs"`
	Err        error            `json:"-"`
	Violations []spec.Violation `json:"violations,omitempty"`
}

// result is the one judge's judgement of the exchange by a rule (a zero
// Judgement, which passes, when it judged none by that rule).
func (x *Exchange) result(rule rules.RuleID) judge.Judgement {
	j, _ := x.judgedBy(rule)
	return j
}

// judgedBy is the one judge's judgement of the exchange by a rule, and
// whether it judged the exchange by that rule at all.
func (x *Exchange) judgedBy(rule rules.RuleID) (judge.Judgement, bool) {
	for _, r := range x.judged.Results {
		if r.Rule == rule {
			return r.Judgement, true
		}
	}
	return judge.Judgement{}, false
}

// Exercises names the rules of the catalog the request exercises, as
// package judge reads it (the proxy's reading of its clients' requests),
// once its scenario is over: read when asked, since a run needs it only to
// hold the classifier to the suite.
func (x *Exchange) Exercises() []rules.RuleID {
	if x.exercises == nil {
		return nil
	}
	return x.exercises(x)
}

// Issued reports whether the request carried the user's token in the
// Bearer scheme.
func (x *Exchange) Issued() bool { return x.issued }

// Answered reports whether a whole answer came.
func (x *Exchange) Answered() bool { return x.Err == nil && x.Status != 0 }

// The request line, the response line and the reproduction are package
// exchange's, the proxy's too; the suite only says what it knows better
// than the header: which token variant the Authorization header carries,
// where else the token went, which extra headers are secrets.

// evidence is the exchange as package exchange renders it.
func (x *Exchange) evidence() *exchange.Exchange {
	e := &exchange.Exchange{
		Method: x.Method, URL: x.URL, Header: x.reqHeader, Body: x.Body, Chunked: x.Chunked,
		Token: x.token, SecretHeaders: x.extra, CurlFlags: x.curlFlags,
		Status: x.Status, RespHeader: x.RespHeader, RespBody: x.RespBody, RespTotal: int64(x.RespBodyLen), Duration: x.Duration,
	}
	if x.Auth != "" || x.authShell != "" {
		e.Auth = &exchange.Credential{Desc: x.Auth, Shell: x.authShell}
	}
	return e
}

// RequestLine summarises the request on one line.
func (x *Exchange) RequestLine() string { return x.evidence().RequestLine(x.red) }

// ResponseLine summarises the response on one line.
func (x *Exchange) ResponseLine() string { return x.evidence().ResponseLine(x.red) }

// Message is the exchange as HTTP messages (exchange.Exchange.Message),
// the request's target shown as target (a base address written for the
// reader, such as {base_url}/plants).
func (x *Exchange) Message(target string) (request, response string) {
	e := x.evidence()
	e.Target = target
	return e.Message(x.red)
}

// Curl returns a paste-ready curl command that sends the same request, the
// user's token read from $PLANTCHECK_TOKEN, every other secret from a
// variable of its own.
func (x *Exchange) Curl() string { return x.evidence().Curl(x.red) }

// tokenMark stands for the token where a request carried it outside its
// Authorization header.
const tokenMark = evidence.TokenMark
