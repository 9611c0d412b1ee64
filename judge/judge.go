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
	// Unjudged say what could not be judged, and why.
	Unjudged []string
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
		if _, bad := AuthDefect(x.Header); !bad && x.Header.Get("Content-Type") == "application/json" {
			// BodyConforms gives CheckRequest's verdict on such a
			// request at a fraction of its cost; CheckRequest says why.
			valid = v.BodyConforms(OpMethod, OpPath, body)
		}
		if !valid {
			o.Violations = v.CheckRequest(sreq)
			valid = len(o.Violations) == 0
		}
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
	add(rules.ResponseMedia, check.MediaTypeJSON(x.RespHeader.Get("Content-Type"), redact))
	if !x.RespWhole {
		return o
	}
	vs := v.CheckResponse(sreq, spec.Response{Status: x.Status, Header: x.RespHeader, Body: x.RespBody})
	add(rules.ResponseDocumented, check.Documented(vs))
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
