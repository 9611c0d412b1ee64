package judge

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/spec"
)

// The document's one operation, the only one judged: the spec leaves
// other paths and methods "not shown".
const (
	OpMethod = http.MethodPost
	OpPath   = "/plants"
)

// Exchange is one request to the operation and its answer, as a judge
// needs them: the bodies, and whether each was read whole (why not, when
// not).
type Exchange struct {
	Header     http.Header
	Body       []byte
	BodyWhole  bool
	BodyWhy    string
	Status     int
	RespHeader http.Header
	RespBody   []byte
	RespWhole  bool
	RespWhy    string
}

// Result is one rule's judgement of one exchange.
type Result struct {
	Rule rules.RuleID
	check.Judgement
}

// Outcome is the judgement of one exchange.
type Outcome struct {
	Results []Result
	// Client: the request broke the document; Violations say how, and
	// Refusal what it exercises.
	Client     bool
	Violations []spec.Violation
	Refusal    Refusal
	// Valid: the document accepts the request, its body read whole.
	Valid bool
	// ResponseViolations are the document's findings on the answer, as
	// the validator gives them (unredacted: the driver makes evidence of
	// them).
	ResponseViolations []spec.Violation
	// Unjudged say what could not be judged, and why.
	Unjudged []string
}

// Accepts gives the document's verdict on a request to the operation
// whose body is known whole: whether it accepts it, and when not, why.
func Accepts(v *spec.Validator, h http.Header, body []byte) (bool, []spec.Violation) {
	if _, bad := AuthDefect(h); !bad && h.Get("Content-Type") == "application/json" {
		// BodyConforms gives CheckRequest's verdict on such a request at
		// a fraction of its cost; CheckRequest says why.
		if v.BodyConforms(OpMethod, OpPath, body) {
			return true, nil
		}
	}
	vs := v.CheckRequest(spec.Request{Method: OpMethod, Path: OpPath, Header: h, Body: body})
	return len(vs) == 0, vs
}

// Judge judges one exchange by every rule its traffic can show, with the
// judgements of package check and the document's validator: an exchange
// in, results per rule out. redact (nil: none) hides secrets in what the
// judgements quote.
func Judge(v *spec.Validator, x Exchange, redact func(string) string) Outcome {
	var o Outcome
	add := func(rule rules.RuleID, j check.Judgement) { o.Results = append(o.Results, Result{rule, j}) }
	if !x.BodyWhole {
		o.Unjudged = append(o.Unjudged, x.BodyWhy)
	}
	if !x.RespWhole {
		o.Unjudged = append(o.Unjudged, x.RespWhy)
	}
	var body []byte
	if x.BodyWhole {
		body = x.Body
	}
	sreq := spec.Request{Method: OpMethod, Path: OpPath, Header: x.Header, Body: body}

	// The document's verdict on the request, when its body is known whole.
	known, valid := x.BodyWhole, false
	if known {
		valid, o.Violations = Accepts(v, x.Header, body)
		o.Valid = valid
	}
	why := ""
	if known && !valid {
		o.Client = true
		why = "(no message)"
		if len(o.Violations) > 0 {
			why = o.Violations[0].String()
		}
	}
	o.Refusal = Classify(x.Header, body, known, valid, why)
	for _, d := range o.Refusal.Defects {
		j := check.Judgement{Expected: "status 400 with an Error record (" + d.What + ")"}
		if x.Status != http.StatusBadRequest {
			j.Actual = fmt.Sprintf("status %d", x.Status)
		}
		add(d.Rule, j)
	}

	// The answer.
	media := check.MediaTypeJSON(x.RespHeader.Values("Content-Type"), redact)
	if !x.RespWhole {
		add(rules.ResponseMedia, media)
		return o
	}
	vs := v.CheckResponse(sreq, spec.Response{Status: x.Status, Header: x.RespHeader, Body: x.RespBody})
	o.ResponseViolations = vs
	if known && valid && x.Status != http.StatusOK && LongHeader(x.Header) != "" {
		// A refusal of a valid request for a long header is the
		// infrastructure's in front (nginx's 400 page, a 431): its shape
		// is judged at HEADER-SIZE's level, a SHOULD, and so is nothing
		// else of the answer.
		shape := []check.Judgement{check.Documented(vs), media}
		if x.Status == http.StatusBadRequest {
			shape = append(shape, check.ErrorRecord(x.RespBody, redact))
		}
		j := check.Judgement{Expected: headerSizeExpected}
		if f, failed := firstFailed(shape); failed {
			j.Actual, j.Details = fmt.Sprintf("status %d: %s", x.Status, f.Actual), f.Details
		}
		add(rules.HeaderSize, j)
		return o
	}
	add(rules.ResponseMedia, media)
	add(rules.ResponseDocumented, check.Documented(vs))
	if known && valid && LongHeader(x.Header) != "" {
		add(rules.HeaderSize, check.Judgement{Expected: headerSizeExpected})
	}
	switch x.Status {
	case http.StatusBadRequest:
		add(rules.ErrorRecord, check.ErrorRecord(x.RespBody, redact))
	case http.StatusOK:
		// A Plant record (which the document's verdict says, when it has
		// nothing to say) is judged for an id; another body is the
		// document's to fail.
		switch {
		case !bytes.Contains(x.RespBody, []byte(`"id"`)) && !bytes.Contains(x.RespBody, []byte(`\u`)) && len(vs) == 0:
			// No member is named id, however it is read: nothing to decode.
			add(rules.CreateNoID, check.Judgement{Expected: "no id property"})
		case len(vs) == 0 || check.PlantRecord(x.RespBody, nil).OK():
			add(rules.CreateNoID, check.NoID(x.RespBody, redact))
		}
		if known && valid {
			o.judgeEcho(body, x.RespBody, redact)
		}
	}
	return o
}

// judgeEcho judges the Plant record of an accepted create against the
// plant sent: the very name, the very tag, no tag when none was sent.
func (o *Outcome) judgeEcho(sentBody, answer []byte, redact func(string) string) {
	sent := check.ReadSent(sentBody)
	if sent.Unjudged != "" {
		o.Unjudged = append(o.Unjudged, "echo not judged: "+sent.Unjudged)
		return
	}
	if !sent.HasName {
		return // the document accepted it, so this cannot be
	}
	fails := check.Echo(sent, answer, redact)
	for _, rule := range EchoRules(sent.HasTag) {
		j := check.Judgement{Expected: EchoExpected}
		for _, f := range fails {
			if f.Rule == rule {
				j = check.Judgement{Expected: f.Expected, Actual: f.Actual}
				break
			}
		}
		o.Results = append(o.Results, Result{rule, j})
	}
}

// EchoExpected is what a passed echo judgement expected.
const EchoExpected = "the Plant record echoes the plant sent"

// EchoRules are the rules an accepted create's echo is judged by: the
// name's, and the tag's or its absence's.
func EchoRules(hasTag bool) [2]rules.RuleID {
	if hasTag {
		return [2]rules.RuleID{check.RuleName, check.RuleTag}
	}
	return [2]rules.RuleID{check.RuleName, check.RuleNoTag}
}

// LongHeaderBytes is the length from which a request's header field is
// long: past what most requests carry, well within the 8 KiB a line that
// common front ends read.
const LongHeaderBytes = 1 << 10

// headerSizeExpected is what HEADER-SIZE expects of an answer.
const headerSizeExpected = "status 200 with a Plant record, or 400 with an Error record (a header limit is the infrastructure's: a SHOULD)"

// LongHeader names a header field of the request that is long (name and
// value LongHeaderBytes or more), other than the two the contract defines
// (Authorization, Content-Type), whose length is the client's own; "" when
// none is.
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

// firstFailed is the first of the judgements that failed.
func firstFailed(js []check.Judgement) (check.Judgement, bool) {
	for _, j := range js {
		if !j.OK() {
			return j, true
		}
	}
	return check.Judgement{}, false
}
