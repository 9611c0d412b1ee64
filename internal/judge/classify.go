// Package judge is the one judgement of an exchange, for both drivers
// (`plantcheck run`'s steps and `plantcheck proxy`): Judge reads what the
// request exercises, then runs its list of checks, one function per rule
// of the catalog that traffic shows, and gives one result per rule. The
// steps assert a rule by reading its result, never by running a check.
// The readings of an answer on its bytes alone (echo.go, records.go) live
// here too, as does the reading of an exchange that got no answer
// (Answered: a time limit, a connection closed or reset).
//
// The classifier reads what a request exercises: which rule of the catalog
// a request calls on, and, for one the document refuses, which rule its
// refusal counts toward (an auth defect, a media defect, a body defect).
// The document (package spec's validator) decides whether a request is
// refused at all; the classifier only says why, so it never makes a
// request the document accepts a refused one.
package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// Defect is one way a request breaks the document: the rule whose refusal
// it calls for, and what it is, in words.
type Defect struct {
	Rule rules.RuleID
	What string
}

// AuthDefect reads the Authorization header with the document's bearer
// check (spec.CheckBearer).
func AuthDefect(h http.Header) (Defect, bool) {
	err := spec.CheckBearer(h.Get("Authorization"))
	rule := rules.AuthScheme
	switch {
	case err == nil:
		return Defect{}, false
	case errors.Is(err, spec.ErrNoAuthorization):
		rule = rules.AuthMissing
	case errors.Is(err, spec.ErrEmptyBearer):
		rule = rules.AuthEmpty
	}
	return Defect{rule, err.Error()}, true
}

// MediaDefect reads the Content-Type: application/json, parameters allowed.
func MediaDefect(h http.Header) (Defect, bool) {
	ct := h.Get("Content-Type")
	switch {
	case ct == "":
		return Defect{rules.MediaRequest, "the request declares no media type"}, true
	case MediaType(ct) != "application/json":
		return Defect{rules.MediaRequest, "the request declares a media type that is not application/json"}, true
	}
	return Defect{}, false
}

// BodyDefects reads what a NewPlant body breaks, the one map from a body's
// defect to a rule. open is set, and no defect returned, for what RFC 8259
// leaves to the reader (a byte order mark, bytes that are not UTF-8, a
// member given twice): OPEN-JSON-READER's, never failed.
func BodyDefects(body []byte) (ds []Defect, open string) {
	t := bytes.Trim(body, " \t\r\n")
	switch {
	case len(t) == 0:
		return []Defect{{rules.BodyJSON, "the request has no body"}}, ""
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		return nil, "the body starts with a byte order mark"
	case !utf8.Valid(body):
		return nil, "the body holds bytes that are not UTF-8"
	case !json.Valid(body):
		return []Defect{{rules.BodyJSON, "the body is not JSON (RFC 8259)"}}, ""
	case t[0] != '{':
		return []Defect{{rules.BodyObject, "the body is JSON but not an object"}}, ""
	}
	members := map[string]json.RawMessage{}
	dup := ""
	EachMember(body, func(key string, raw json.RawMessage) bool {
		if _, seen := members[key]; seen {
			dup = key
			return false
		}
		members[key] = raw
		return true
	})
	if dup != "" {
		return nil, "the body gives " + strconv.Quote(dup) + " twice"
	}
	if raw, ok := members["id"]; !ok {
		ds = append(ds, Defect{rules.BodyIDRequired, "the body has no id"})
	} else if d, bad := idDefect(raw); bad {
		ds = append(ds, d)
	}
	if raw, ok := members["name"]; !ok {
		ds = append(ds, Defect{rules.BodyNameRequired, "the body has no name"})
	} else if !isString(raw) {
		ds = append(ds, Defect{rules.BodyNameString, "the body's name is not a string"})
	}
	if raw, ok := members["tag"]; ok && !isString(raw) {
		ds = append(ds, Defect{rules.BodyTagString, "the body's tag is not a string"})
	}
	return ds, ""
}

// idDefect judges an id's JSON value: an integer (a zero fraction counts,
// as JSON Schema 2020-12 has it) within int64.
func idDefect(raw json.RawMessage) (Defect, bool) {
	lit := string(raw)
	if lit == "" || !(lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9') {
		return Defect{rules.BodyIDInteger, "the body's id is not a number"}, true
	}
	if _, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return Defect{}, false
	}
	r, ok := spec.ExactNumber(lit)
	switch {
	case !ok:
		return Defect{rules.BodyIDInteger, "the body's id is not a number"}, true
	case r == nil:
		return Defect{rules.BodyIDInt64, "the body's id is far outside int64"}, true
	case !r.IsInt():
		return Defect{rules.BodyIDInteger, "the body's id has a fraction"}, true
	case !r.Num().IsInt64():
		return Defect{rules.BodyIDInt64, "the body's id is outside int64"}, true
	}
	return Defect{}, false
}

// Refusal is why a request is due a refusal: its defects, and what RFC
// 8259 leaves open about it ("" when nothing).
type Refusal struct {
	Defects []Defect
	Open    string
}

// Classify names what a request exercises, given whether the document
// accepts it (valid) and whether its body is known whole (known): an auth
// defect whenever it is not known valid, a media or body defect only when
// refused; a refusal with no rule of its own counts toward GEN-INVALID,
// with the document's reason, why.
func Classify(h http.Header, body []byte, known, valid bool, why string) Refusal {
	var r Refusal
	if d, ok := AuthDefect(h); ok && (!known || !valid) {
		r.Defects = append(r.Defects, d)
	}
	if !known || valid {
		return r
	}
	if d, ok := MediaDefect(h); ok {
		r.Defects = append(r.Defects, d)
	}
	ds, open := BodyDefects(body)
	r.Defects, r.Open = append(r.Defects, ds...), open
	if len(r.Defects) == 0 && open == "" {
		r.Defects = append(r.Defects, Defect{rules.GenInvalid, "the document refuses the request: " + why})
	}
	return r
}
