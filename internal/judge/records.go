package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// A Judgement says what was expected and, when the answer departs from it,
// what came back (Actual: "" when it keeps the rule).
type Judgement struct {
	Expected, Actual string
	Details          []string
	Status           int // the status it calls for, when it judges one
}

func (j Judgement) OK() bool { return j.Actual == "" }

// NotAnObject is what a judgement says of a body that is no JSON object.
const NotAnObject = "a body that is not a JSON object"

// object reads a body as one JSON object.
func object(body []byte) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// describe says what a property holds, redacted, quoted and cut.
func describe(obj map[string]json.RawMessage, name string, redact func(string) string) string {
	raw, ok := obj[name]
	if !ok {
		return "missing"
	}
	return jsonValue(raw, redact)
}

// isString reports whether a member's raw (valid) JSON value is a string.
func isString(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '"'
}

// isInt32 reports whether a raw JSON value is an integer within int32. A
// zero fraction (400.0) is an integer in JSON Schema 2020-12.
func isInt32(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	if t == "" || !(t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		return false
	}
	if _, err := strconv.ParseInt(t, 10, 32); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(t, 64)
	return err == nil && f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32
}

// plantRecordOf judges a body read already as a Plant record: an object
// with name, a string, and, optionally, tag, a string.
func plantRecordOf(obj map[string]json.RawMessage, ok bool, redact func(string) string) Judgement {
	j := Judgement{Expected: "a Plant record: an object with name (a string) and, optionally, tag (a string)"}
	switch {
	case !ok:
		j.Actual = NotAnObject
	case !isString(obj["name"]):
		j.Actual = "name is " + describe(obj, "name", redact)
	case obj["tag"] != nil && !isString(obj["tag"]):
		j.Actual = "tag is " + describe(obj, "tag", redact)
	}
	return j
}

// ErrorRecord judges a body as an Error record: an object with error, an
// int32 integer, and message, a string ("an error response carries both
// error and message").
func ErrorRecord(body []byte, redact func(string) string) Judgement {
	j := Judgement{Expected: "an Error record: an object with error (an int32 integer) and message (a string)"}
	obj, ok := object(body)
	switch {
	case !ok:
		j.Actual = NotAnObject
	case !isInt32(obj["error"]):
		j.Actual = "error is " + describe(obj, "error", redact)
	case !isString(obj["message"]):
		j.Actual = "message is " + describe(obj, "message", redact)
	}
	return j
}

// MediaType is a Content-Type value's media type, lower-cased, without
// parameters; "" when it does not parse.
func MediaType(v string) string {
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return mt
}

// AdmitsJSON reports whether a request's Accept fields admit
// application/json (RFC 9110, 12.5.1): none, or one that does not parse,
// admits it; else the most specific range that holds it decides, and a
// weight of 0 refuses ("*/*, application/json;q=0" does not admit it).
func AdmitsJSON(h http.Header) bool {
	values := h.Values("Accept")
	best, weight, ranges := -1, 0.0, 0
	for _, v := range values {
		for _, r := range strings.Split(v, ",") {
			if strings.TrimSpace(r) == "" {
				continue
			}
			mt, params, err := mime.ParseMediaType(r)
			if err != nil {
				return true
			}
			ranges++
			specific := slices.Index([]string{"*/*", "application/*", "application/json"}, mt)
			if specific < 0 || specific < best {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil {
					q = f
				}
			}
			if specific > best {
				best, weight = specific, q
			} else {
				weight = max(weight, q)
			}
		}
	}
	return ranges == 0 || best >= 0 && weight > 0
}

// MediaTypeJSON judges a response's Content-Type fields, all of them: one
// field, application/json, parameters allowed. Content-Type is a singleton
// (RFC 9110, 5.3 and 8.3): two, even alike, give no one media type (a
// middleware that adds its own sends such answers).
func MediaTypeJSON(values []string, redact func(string) string) Judgement {
	j := Judgement{Expected: "one Content-Type field, application/json (parameters allowed)"}
	switch {
	case len(values) == 0 || len(values) == 1 && values[0] == "":
		j.Actual = "no Content-Type header"
	case len(values) > 1:
		quoted := make([]string, 0, min(len(values), 4))
		for _, v := range values[:min(len(values), 4)] {
			quoted = append(quoted, Quote(redact(v)))
		}
		j.Actual = fmt.Sprintf("%d Content-Type fields (%s), where HTTP allows one", len(values), strings.Join(quoted, ", "))
	case MediaType(values[0]) != "application/json":
		j.Actual = "Content-Type " + Quote(redact(values[0]))
	}
	return j
}

// Documented judges an answer by the document's violations of it.
func Documented(vs []spec.Violation) Judgement {
	j := Judgement{Expected: "a response the document describes: 200 with a Plant record or 400 with an Error record, as application/json"}
	if len(vs) == 0 {
		return j
	}
	j.Actual = fmt.Sprintf("a response the document does not describe (%d violation(s))", len(vs))
	for _, v := range vs {
		j.Details = append(j.Details, v.String())
	}
	return j
}

// ErrBodyTooLarge marks an answer whose body passed the bound that is read.
var ErrBodyTooLarge = errors.New("response body too large")

// Answered judges whether an answer came, whole, in time (err: how the
// exchange failed, nil when it did not), and the rule that counts it:
// RESPONSE-DOCUMENTED for a body past maxBody or framing HTTP forbids,
// RESPONSE-TIMELY for no answer within limit.
func Answered(err error, status int, limit time.Duration, maxBody int64) (rules.RuleID, Judgement) {
	if err == nil {
		return rules.ResponseTimely, Judgement{}
	}
	if errors.Is(err, ErrBodyTooLarge) {
		return rules.ResponseDocumented, Judgement{
			Expected: fmt.Sprintf("a response body of at most %d bytes (the bound plantcheck reads)", maxBody),
			Actual:   fmt.Sprintf("status %d with a body longer than %d bytes", status, maxBody),
		}
	}
	if what, ok := BrokenFraming(err); ok {
		return rules.ResponseDocumented, Judgement{
			Expected: "a response HTTP can frame: one Content-Length, a decimal length (RFC 9110, section 8.6; RFC 9112, section 6.3)",
			Actual:   "an answer with " + what + ", which Go's client refuses to read",
		}
	}
	j := Judgement{Expected: fmt.Sprintf("a complete HTTP response within %s", limit), Actual: "no answer: " + err.Error()}
	var ne net.Error
	switch f := client.FaultOf(err); {
	case errors.As(err, &ne) && ne.Timeout():
		j.Actual = fmt.Sprintf("no complete answer within %s", limit)
	case f != client.NoFault && status != 0:
		// Not a time limit: the connection ended, often in milliseconds.
		j.Expected = "a complete HTTP response to the request"
		j.Actual = fmt.Sprintf("status %d, then the connection ended before the end of its body: %s", status, err)
	case f != client.NoFault:
		j.Expected = "an HTTP response to the request"
		j.Actual = fmt.Sprintf("the connection was %s: %s", f, err)
	}
	return rules.ResponseTimely, j
}

// The texts of net/http's errors for a Content-Length it cannot frame by
// (net/http/transfer.go, fixLength: plain fmt.Errorf, no error value).
var framingErrors = []struct{ text, what string }{
	{"message cannot contain multiple Content-Length headers", "Content-Length fields of different values"},
	{"bad Content-Length", "a Content-Length that is not a decimal length"},
}

// BrokenFraming says whether err is net/http's refusal of an answer whose
// framing HTTP forbids, and what the answer had: the server's fault (sent
// again, it comes back the same), not the network's.
func BrokenFraming(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	msg := err.Error()
	for _, f := range framingErrors {
		if strings.Contains(msg, f.text) {
			return f.what, true
		}
	}
	return "", false
}
