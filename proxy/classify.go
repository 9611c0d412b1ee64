package proxy

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/check"
	"github.com/plantcheck/plantcheck/rules"
)

// A request the document refuses must be refused by the service (400 with
// an Error record): which rule of the catalog the refusal counts toward
// depends on what is wrong with the request, which this file reads from
// the request itself, the way the suite's scenarios name it. The document
// (the validator) decides whether the request is refused at all; these only
// say why, so they never make a request the document accepts a refused one.

// defect is one way a request breaks the document: the rule whose
// refusal it calls for, and what it is, in words.
type defect struct {
	rule rules.RuleID
	what string
}

// authDefect reads the Authorization header as the document's bearer
// scheme does: present, the scheme Bearer in any case, a credential that
// is not blank.
func authDefect(h http.Header) (defect, bool) {
	v := h.Get("Authorization")
	if v == "" {
		return defect{rules.AuthMissing, "the request has no Authorization header"}, true
	}
	scheme, cred, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return defect{rules.AuthScheme, "the Authorization header does not use the Bearer scheme"}, true
	}
	if strings.TrimSpace(cred) == "" {
		return defect{rules.AuthEmpty, "the Authorization header carries the Bearer scheme with an empty credential"}, true
	}
	return defect{}, false
}

// mediaDefect reads the Content-Type: application/json, parameters
// allowed.
func mediaDefect(h http.Header) (defect, bool) {
	ct := h.Get("Content-Type")
	switch {
	case ct == "":
		return defect{rules.MediaRequest, "the request declares no media type"}, true
	case check.MediaType(ct) != "application/json":
		return defect{rules.MediaRequest, "the request declares a media type that is not application/json"}, true
	}
	return defect{}, false
}

// bodyDefects reads what a NewPlant body breaks, as the suite's invalid
// cases are named (steps/generated.go's invalidRules): a body that is not
// JSON, not an object, an id missing, not an integer or past int64, a name
// missing or not a string, a tag not a string. open is set, and no defect
// returned, for what RFC 8259 leaves to the reader (a byte order mark,
// bytes that are not UTF-8, a member given twice): the suite notes those
// under OPEN-JSON-READER and never fails them.
func bodyDefects(body []byte) (ds []defect, open string) {
	t := bytes.Trim(body, " \t\r\n")
	switch {
	case len(t) == 0:
		return []defect{{rules.BodyJSON, "the request has no body"}}, ""
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		return nil, "the body starts with a byte order mark"
	case !utf8.Valid(body):
		return nil, "the body holds bytes that are not UTF-8"
	case !json.Valid(body):
		return []defect{{rules.BodyJSON, "the body is not JSON (RFC 8259)"}}, ""
	case t[0] != '{':
		return []defect{{rules.BodyObject, "the body is JSON but not an object"}}, ""
	}
	members, dup := topMembers(body)
	if dup != "" {
		return nil, "the body gives " + strconv.Quote(dup) + " twice"
	}
	if raw, ok := members["id"]; !ok {
		ds = append(ds, defect{rules.BodyIDRequired, "the body has no id"})
	} else if d, bad := idDefect(raw); bad {
		ds = append(ds, d)
	}
	if raw, ok := members["name"]; !ok {
		ds = append(ds, defect{rules.BodyNameRequired, "the body has no name"})
	} else if !isJSONString(raw) {
		ds = append(ds, defect{rules.BodyNameString, "the body's name is not a string"})
	}
	if raw, ok := members["tag"]; ok && !isJSONString(raw) {
		ds = append(ds, defect{rules.BodyTagString, "the body's tag is not a string"})
	}
	return ds, ""
}

// topMembers reads the members of a JSON object (the caller has checked
// that it is one), and the first key given twice.
func topMembers(body []byte) (map[string]json.RawMessage, string) {
	d := json.NewDecoder(bytes.NewReader(body))
	if _, err := d.Token(); err != nil {
		return nil, ""
	}
	out := map[string]json.RawMessage{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return out, ""
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return out, ""
		}
		if _, seen := out[key]; seen {
			return out, key
		}
		out[key] = raw
	}
	return out, ""
}

func isJSONString(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '"'
}

// idDefect judges an id's JSON value: an integer (a zero fraction counts,
// as JSON Schema 2020-12 has it) within int64.
func idDefect(raw json.RawMessage) (defect, bool) {
	lit := string(raw)
	if lit == "" || !(lit[0] == '-' || lit[0] >= '0' && lit[0] <= '9') {
		return defect{rules.BodyIDInteger, "the body's id is not a number"}, true
	}
	if _, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return defect{}, false
	}
	r, ok := exactNumber(lit)
	switch {
	case !ok:
		return defect{rules.BodyIDInteger, "the body's id is not a number"}, true
	case r == nil:
		return defect{rules.BodyIDInt64, "the body's id is far outside int64"}, true
	case !r.IsInt():
		return defect{rules.BodyIDInteger, "the body's id has a fraction"}, true
	case !r.Num().IsInt64():
		return defect{rules.BodyIDInt64, "the body's id is outside int64"}, true
	}
	return defect{}, false
}

// exactNumber reads a JSON number exactly; nil (and true) for one whose
// exponent is too large to read at a bounded cost: far past any integer
// format (a tiny one is a fraction).
func exactNumber(lit string) (*big.Rat, bool) {
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		exp, err := strconv.Atoi(lit[i+1:])
		if err != nil || exp > 400 || exp < -400 {
			m, ok := new(big.Rat).SetString(lit[:i])
			switch {
			case !ok:
				return nil, false
			case m.Sign() == 0:
				return m, true
			case strings.HasPrefix(lit[i+1:], "-"):
				return big.NewRat(1, 2), true
			}
			return nil, true
		}
	}
	if len(lit) > 1000 {
		return nil, true
	}
	return new(big.Rat).SetString(lit)
}
