package judge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// The document's one operation, the only one judged: the spec leaves
// other paths and methods "not shown".
const (
	OpMethod = http.MethodPost
	OpPath   = "/plants"
)

// Sender is what the driver that sent a request knows that its traffic
// cannot show: the limits it put on the answer (Answered names them), and
// its intent. The proxy and a recording know none of it (the zero Sender).
type Sender struct {
	Timeout time.Duration
	MaxBody int64
	Intent
}

// Intent is what `plantcheck run` meant a request to be, which decides the
// rules traffic alone cannot show (NotFromTraffic).
type Intent struct {
	Issued bool // the request carries the credential the service issued, in the bearer scheme (any letter case)
	// Accept is the rule a refusal of the request counts toward when the
	// document accepts it and the credential is the issued one ("":
	// CREATE-200). An open rule's judgement never fails.
	Accept rules.RuleID
	// Refuse is the rule an acceptance counts toward when the document
	// accepts the request but its credential is not the issued one
	// (AUTH-UNKNOWN, AUTH-NEAR-MISS): it is due a refusal all the same.
	Refuse rules.RuleID
	// Case is a further rule the request is a case of, judged as the
	// refusal rules are (GEN-INVALID).
	Case rules.RuleID
	// MayRefuse says why a refusal of this valid request is the service's
	// right (a size the spec sets no limit on): its status is not judged.
	MayRefuse string
	// Unsure says why a refusal of this valid request may be due to what
	// was sent before (an id the service stored): not judged, and said.
	Unsure string
}

// Result is one rule's judgement of one exchange.
type Result struct {
	Rule rules.RuleID
	Judgement
}

// Outcome is the judgement of one exchange.
type Outcome struct {
	Results []Result
	// Client: the request broke the document; Violations say how, and
	// Refusal what it exercises.
	Client     bool
	Violations []spec.Violation
	Refusal    Refusal
	Valid      bool // the document accepts the request, its body read whole
	// ResponseViolations are the document's findings on the answer,
	// unredacted: the driver makes evidence of them.
	ResponseViolations []spec.Violation
	Unjudged           []string // what could not be judged, and why
}

// Accepts gives the document's verdict on a request to the operation
// whose body is known whole: whether it accepts it, and when not, why.
func Accepts(v *spec.Validator, h http.Header, body []byte) (bool, []spec.Violation) {
	ok, vs, _ := accepts(v, h, body)
	return ok, vs
}

// accepts is Accepts, with the body as the document's check decoded it
// (nil when not), for the echo.
func accepts(v *spec.Validator, h http.Header, body []byte) (bool, []spec.Violation, any) {
	if _, bad := AuthDefect(h); !bad && h.Get("Content-Type") == "application/json" {
		// The body's verdict is CheckRequest's on such a request at a
		// fraction of its cost; CheckRequest says why.
		if ok, value := v.ReadBody(OpMethod, OpPath, body); ok {
			return true, nil, value
		}
	}
	vs := v.CheckRequest(spec.Request{Method: OpMethod, Path: OpPath, Header: h, Body: body})
	return len(vs) == 0, vs, nil
}

// Conforms is Accepts' verdict without its reasons, cheaper on a body the
// document refuses.
func Conforms(v *spec.Validator, h http.Header, body []byte) bool {
	if _, bad := AuthDefect(h); !bad && h.Get("Content-Type") == "application/json" {
		return v.BodyConforms(OpMethod, OpPath, body)
	}
	ok, _ := Accepts(v, h, body)
	return ok
}

// Judge judges one exchange by every rule its traffic can show: first what
// the request exercises, then each check of Rules, in order. It never
// changes x; a body that is not whole is not judged. redact (nil: none)
// hides secrets in what the judgements quote.
func Judge(v *spec.Validator, x *exchange.Exchange, b Sender, redact func(string) string) Outcome {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	e := &exam{Exchange: x, redact: redact, respWhole: x.RespIncomplete == ""}
	o := &e.out
	if x.BodyIncomplete != "" {
		o.Unjudged = append(o.Unjudged, x.BodyIncomplete)
	}
	if !e.respWhole {
		o.Unjudged = append(o.Unjudged, x.RespIncomplete)
	}

	// The document's verdict on the request, when its body is known whole.
	if e.known = x.BodyIncomplete == ""; e.known {
		e.body = x.Body
		e.valid, o.Violations, e.decoded = accepts(v, x.Header, e.body)
		o.Valid = e.valid
	}
	why := ""
	if e.known && !e.valid {
		o.Client = true
		why = "(no message)"
		if len(o.Violations) > 0 {
			why = o.Violations[0].String()
		}
	}
	o.Refusal = Classify(x.Header, e.body, e.known, e.valid, why)
	refusal := func(rule rules.RuleID, what string) {
		j := Judgement{Expected: "status 400 with an Error record (" + what + ")", Status: http.StatusBadRequest}
		if x.Status != http.StatusBadRequest {
			j.Actual = fmt.Sprintf("status %d", x.Status)
		}
		o.Results = append(o.Results, Result{rule, j})
	}
	for _, d := range o.Refusal.Defects {
		refusal(d.Rule, d.What)
	}
	in := b.Intent
	if in.Case != "" && e.known && !e.valid && !slices.ContainsFunc(o.Refusal.Defects, func(d Defect) bool { return d.Rule == in.Case }) {
		refusal(in.Case, "a generated case the document refuses")
	}
	if in.Refuse != "" && e.known && e.valid && !in.Issued {
		refusal(in.Refuse, "a credential the service did not issue")
	}

	// No whole answer came (x.Err): that alone is judged, under the rule
	// it counts toward (Answered); the request's verdict above stands.
	if x.Err != nil {
		rule, j := Answered(x.Err, x.Status, b.Timeout, b.MaxBody)
		o.Results = []Result{{rule, j}}
		return *o
	}

	// A 406 to a valid request whose Accept admits no application/json is
	// what RFC 9110 gives a server that cannot send what was asked for; the
	// spec does not say what a service answers then (OPEN-ACCEPT-OTHER):
	// neither its status nor its body is the document's to judge.
	e.unacceptable = e.known && e.valid && x.Status == http.StatusNotAcceptable && !AdmitsJSON(x.Header)

	// The answer, by each check of the list.
	if e.respWhole {
		o.ResponseViolations = v.CheckResponse(spec.Request{Method: OpMethod, Path: OpPath, Header: x.Header, Body: e.body},
			spec.Response{Status: x.Status, Header: x.RespHeader, Body: x.RespBody})
		// A refusal of a valid request with a long header is the
		// infrastructure's (nginx's 400 page, a 431): HEADER-SIZE's alone.
		e.infra = e.known && e.valid && x.Status != http.StatusOK && LongHeader(x.Header) != ""
		if e.answered() && x.Status == http.StatusOK {
			// Read once, for its record, its id and its echo: when it
			// echoes a plain body as written, by the plant sent.
			var sent Sent
			plain := false
			if e.accepted() {
				sent, plain = readSent(e.body, e.decoded)
			}
			if plain {
				e.answer, e.isObject = echoed(x.RespBody, sent)
			}
			if !e.isObject {
				e.answer, e.isObject = object(x.RespBody)
			}
			if e.accepted() {
				e.judgeEcho(sent)
			}
		}
	}
	for _, r := range Rules {
		if r.check == nil {
			continue
		}
		if j, ok := r.check(e); ok {
			o.Results = append(o.Results, Result{r.ID, j})
		}
	}
	e.judgeAcceptance(in)
	return *o
}

// judgeAcceptance judges the status of a request the document accepts,
// sent with the issued credential, under the rule its intent names: it is
// answered 200 (Endpoints, rule 1), unless a refusal is the service's right
// (MayRefuse), may be due to what was sent before (Unsure), is for a long
// header (HEADER-SIZE's), or is a 406 to an Accept that admits no JSON.
func (e *exam) judgeAcceptance(in Intent) {
	if !e.respWhole {
		return
	}
	rule := cmp.Or(in.Accept, rules.Create200)
	if r, ok := rules.Lookup(rule); ok && r.Level == rules.Open {
		// What the spec leaves open is noted, never failed.
		e.out.Results = append(e.out.Results, Result{rule, Judgement{Expected: "an answer, noted (the spec leaves it open)"}})
		return
	}
	if !in.Issued || !e.known || !e.valid || LongHeader(e.Header) != "" || e.unacceptable {
		return
	}
	j := Judgement{Expected: "status 200 with a Plant record", Status: http.StatusOK}
	if e.Status == http.StatusOK {
		if rule != rules.Create200 { // CREATE-200's is the record's check
			e.out.Results = append(e.out.Results, Result{rule, j})
		}
		return
	}
	switch {
	case in.MayRefuse != "":
		return
	case in.Unsure != "" && e.Status/100 == 4: // the status the target refuses a stored plant with (Unsure)
		e.out.Unjudged = append(e.out.Unjudged, in.Unsure)
		return
	}
	j.Actual = fmt.Sprintf("status %d", e.Status)
	e.out.Results = append(e.out.Results, Result{rule, j})
}

// exam is one exchange under judgement, with what the checks share.
type exam struct {
	*exchange.Exchange
	redact       func(string) string
	respWhole    bool   // the answer was read whole
	body         []byte // the request's body when it is known whole (nil when not)
	decoded      any    // the body as the document's check decoded it (nil when it did not)
	known, valid bool
	infra        bool  // a valid request with a long header, refused (HEADER-SIZE's alone to judge)
	unacceptable bool  // a valid request whose Accept admits no JSON, answered 406 (OPEN-ACCEPT-OTHER's)
	sent         *Sent // the plant an accepted create sent (nil: no echo judged)
	echo         []EchoFailure
	answer       map[string]json.RawMessage // a 200 answer read as an object (isObject)
	isObject     bool
	out          Outcome
}

// answered: the answer was read whole and is the service's to judge in
// full.
func (e *exam) answered() bool { return e.respWhole && !e.infra && !e.unacceptable }

// accepted: a create the document accepts, answered 200.
func (e *exam) accepted() bool {
	return e.answered() && e.Status == http.StatusOK && e.known && e.valid
}

// judgeEcho finds the echo's departures from the plant an accepted create
// sent.
func (e *exam) judgeEcho(sent Sent) {
	if sent.Unjudged != "" {
		e.out.Unjudged = append(e.out.Unjudged, EchoNotJudged+sent.Unjudged)
		return
	}
	if !sent.HasName {
		return // the document accepted it, so this cannot be
	}
	e.sent = &sent
	e.echo = echoIn(sent, e.answer, e.isObject, e.redact)
}

func responseMedia(e *exam) (Judgement, bool) {
	return MediaTypeJSON(e.RespHeader.Values("Content-Type"), e.redact), !e.infra && !e.unacceptable
}

// responseTimely: a whole answer came in time (one that did not is judged
// by Answered).
func responseTimely(e *exam) (Judgement, bool) {
	return Judgement{Expected: "a complete HTTP response within the time limit"}, e.respWhole
}

func responseDocumented(e *exam) (Judgement, bool) {
	return Documented(e.out.ResponseViolations), e.answered()
}

// headerSize judges the answer to a valid request whose header is long:
// a refusal is judged for its shape, at HEADER-SIZE's level.
func headerSize(e *exam) (Judgement, bool) {
	if !e.respWhole || !e.known || !e.valid || LongHeader(e.Header) == "" {
		return Judgement{}, false
	}
	j := Judgement{Expected: "status 200 with a Plant record, or 400 with an Error record (a header limit is the infrastructure's: a SHOULD)"}
	if !e.infra {
		return j, true
	}
	shape := []Judgement{Documented(e.out.ResponseViolations), MediaTypeJSON(e.RespHeader.Values("Content-Type"), e.redact)}
	if e.Status == http.StatusBadRequest {
		shape = append(shape, ErrorRecord(e.RespBody, e.redact))
	}
	for _, f := range shape {
		if !f.OK() {
			j.Actual, j.Details = fmt.Sprintf("status %d: %s", e.Status, f.Actual), f.Details
			break
		}
	}
	return j, true
}

func errorRecord(e *exam) (Judgement, bool) {
	if !e.answered() || e.Status != http.StatusBadRequest {
		return Judgement{}, false
	}
	return ErrorRecord(e.RespBody, e.redact), true
}

// plantRecord judges the answer to an accepted create as a Plant record,
// CREATE-200's (a refusal is judgeAcceptance's).
func plantRecord(e *exam) (Judgement, bool) {
	if !e.accepted() {
		return Judgement{}, false
	}
	return plantRecordOf(e.answer, e.isObject, e.redact), true
}

// noID judges a Plant record for an id; another body is the document's to
// fail.
func noID(e *exam) (Judgement, bool) {
	if !e.answered() || e.Status != http.StatusOK ||
		len(e.out.ResponseViolations) > 0 && !plantRecordOf(e.answer, e.isObject, e.redact).OK() {
		return Judgement{}, false
	}
	j := Judgement{Expected: "no id property"}
	switch {
	case !e.isObject:
		j.Actual = NotAnObject
	case e.answer["id"] != nil:
		j.Actual = "id is " + describe(e.answer, "id", e.redact)
	}
	return j, true
}

// echoOf is the check of one rule of an accepted create's echo: the
// name's, the tag's, or, when no tag was sent, its absence's.
func echoOf(rule rules.RuleID) func(e *exam) (Judgement, bool) {
	return func(e *exam) (Judgement, bool) {
		if e.sent == nil || rule == rules.CreateTag && !e.sent.HasTag || rule == rules.CreateNoTag && e.sent.HasTag {
			return Judgement{}, false
		}
		for _, f := range e.echo {
			if f.Rule == rule {
				return Judgement{Expected: f.Expected, Actual: f.Actual}, true
			}
		}
		return Judgement{Expected: "the Plant record echoes the plant sent"}, true
	}
}

// EchoNotJudged begins the note of an accepted create whose echo cannot be
// judged, before the reason.
const EchoNotJudged = "echo not judged: "

// LongHeaderBytes is the length from which a request's header field is
// long: past most requests', well within common front ends' 8 KiB.
const LongHeaderBytes = 1 << 10

// LongHeader names a long header field of the request (name and value),
// other than Authorization and Content-Type, the client's own; "" if none.
func LongHeader(h http.Header) string {
	for name, vs := range h {
		if name == "Authorization" || name == "Content-Type" {
			continue
		}
		for _, v := range vs {
			if len(name)+len(v) >= LongHeaderBytes {
				return name
			}
		}
	}
	return ""
}
