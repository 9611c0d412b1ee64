package judge

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Request is what the classifier reads of a request to POST /plants.
type Request struct {
	Header http.Header
	Body   []byte
	// Valid: the document accepts the request (spec.Validator's
	// CheckRequest finds nothing), its body read whole.
	Valid bool
	// Issued is the token the service issued, when the driver knows it
	// (`plantcheck run` does; the proxy does not, so it judges neither
	// AUTH-UNKNOWN nor AUTH-NEAR-MISS).
	Issued string
}

// Exercises names every rule of the catalog a request exercises: the rules
// of every answer; the rule of each way it breaks the document, and
// ERROR-RECORD, for a request due a refusal; for a request due an
// acceptance, the create rules and what of the body and media type it
// varies. Rules that depend on what was sent before (OPEN-REUSED-ID) or on
// how the request was made (GEN-*) are not the request's to say.
func Exercises(r Request) []rules.RuleID {
	out := []rules.RuleID{rules.ResponseDocumented, rules.ResponseMedia, rules.ResponseTimely}
	add := func(id rules.RuleID) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	refused := !r.Valid
	if _, bad := AuthDefect(r.Header); !bad && r.Issued != "" {
		_, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if cred = strings.TrimSpace(cred); cred != r.Issued {
			refused = true
			if nearMiss(cred, r.Issued) {
				add(rules.AuthNearMiss)
			} else {
				add(rules.AuthUnknown)
			}
		}
	}
	// The Bearer scheme in another letter case: what HTTP calls the same
	// scheme, and the spec writes Bearer (a SHOULD).
	if scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " "); scheme != "Bearer" && strings.EqualFold(scheme, "Bearer") {
		add(rules.AuthSchemeCase)
	}
	for _, d := range Classify(r.Header, r.Body, true, r.Valid, "").Defects {
		add(d.Rule)
	}
	// What RFC 8259 leaves to the reader (a byte order mark, bytes that
	// are not UTF-8, a member given twice, an escaped lone surrogate),
	// whether the document refuses the request or not.
	if _, open := BodyDefects(r.Body); open != "" || r.Valid && ReadSent(r.Body).Unjudged != "" {
		add(rules.OpenJSONReader)
	}
	if refused {
		add(rules.ErrorRecord)
		return out
	}
	if LongHeader(r.Header) != "" {
		add(rules.HeaderSize)
	}
	add(rules.Create200)
	add(rules.CreateName)
	add(rules.CreateNoID)
	add(rules.BodyIDRange)
	add(rules.BodyNameAny)
	if ct := r.Header.Get("Content-Type"); ct != MediaType(ct) {
		add(rules.MediaRequestParams)
	}
	switch a := r.Header.Get("Accept"); {
	case !AdmitsJSON(r.Header):
		add(rules.OpenAcceptOther)
	case a != "" && a != "application/json":
		add(rules.MediaAccept)
	}
	hasTag := false
	EachMember(r.Body, func(key string, raw json.RawMessage) bool {
		switch key {
		case "tag":
			hasTag = true
		case "id":
			if strings.ContainsAny(string(raw), ".eE") {
				add(rules.OpenIntegralID)
			}
		case "name":
		default:
			add(rules.BodyExtraFields)
		}
		return true
	})
	if hasTag {
		add(rules.CreateTag)
		add(rules.BodyTagAny)
	} else {
		add(rules.CreateNoTag)
	}
	return out
}

// normalisations are what token checks do to a credential before they
// compare it: each makes a near miss read as the issued token.
var normalisations = []func(string) string{
	func(s string) string { return strings.TrimRight(s, "=") },
	strings.NewReplacer("-", "+", "_", "/").Replace,
	func(s string) string {
		if u, err := url.PathUnescape(s); err == nil {
			return u
		}
		return s
	},
	func(s string) string { return strings.Join(strings.Fields(s), "") },
	func(s string) string { return strings.Map(narrow, s) },
}

// narrow is a character of full width (U+FF01 to U+FF5E) as the ASCII
// character it is the wide form of, as width folding and NFKC read it;
// any other character as it is.
func narrow(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		return r - 0xFEE0
	}
	return r
}

// nearMiss reports whether a credential is near the issued token, as a
// check that compares too little, or normalises before it compares, would
// take it: the same letters in another case, one inside the other, one
// byte changed, or the same once base64 padding, base64's alphabet,
// percent-encoding, white space or full width is read away.
func nearMiss(cred, issued string) bool {
	if strings.EqualFold(cred, issued) || strings.Contains(cred, issued) || strings.Contains(issued, cred) {
		return true
	}
	for _, norm := range normalisations {
		if norm(cred) == norm(issued) {
			return true
		}
	}
	if len(cred) != len(issued) {
		return false
	}
	diff := 0
	for i := range len(cred) {
		if cred[i] != issued[i] {
			diff++
		}
	}
	return diff == 1
}

// AnswerRule says whether the judge reads rule id from the answer, by a
// check of its own, whoever sent the request (RESPONSE-MEDIA, ERROR-RECORD,
// CREATE-NAME...): such a rule is named by the judgement of the answer, not
// by the classifier's reading of the request.
func AnswerRule(id rules.RuleID) bool {
	for _, r := range Rules {
		if r.ID == id {
			return r.check != nil && r.NotFromTraffic == ""
		}
	}
	return false
}
