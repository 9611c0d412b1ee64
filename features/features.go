// Package features holds the Gherkin features of the Plant Store API, the
// living documentation of what the API promises, and the catalog of the
// spec's rules that their scenarios encode. Both are embedded in the binary.
//
// Every scenario carries one rule ID tag from the catalog (such as
// @CREATE-200) and the rule's level tag: @must, @should or @open.
package features

import "embed"

// FS holds the feature files, at its root.
//
//go:embed *.feature
var FS embed.FS

// Level says what a rule's failure means for a verdict.
type Level string

const (
	// Must: any failure makes the target non-conformant.
	Must Level = "must"
	// Should: a failure is reported; it fails the run only in strict mode.
	Should Level = "should"
	// Open: the spec leaves the matter open; the answer is noted, never failed.
	Open Level = "open"
)

// Rule is one requirement of the spec, as the suite checks it.
type Rule struct {
	ID    string `json:"id"`
	Level Level  `json:"level"`
	// Source is the part of the specification the rule comes from.
	Source string `json:"source"`
	// Requirement is the requirement, in the spec's words where it has them.
	Requirement string `json:"requirement"`
}

// Rules is the catalog: every rule of the spec the suite checks, in the order
// a reader meets them. IDs are written by hand and never reused.
var Rules = []Rule{
	{"CREATE-200", Must, "Endpoints, POST /plants, rule 1", "When the request is valid, then the service answers with status 200 and a Plant record, however the request's JSON is spelled and its HTTP framed."},
	{"CREATE-NAME", Must, "Endpoints, POST /plants, rule 1", "The Plant record answered with 200 carries the very name that was sent, code point for code point, in every scenario."},
	{"CREATE-TAG", Must, "Endpoints, POST /plants, rule 1", "The Plant record answered with 200 carries the very tag that was sent (\"tag where present\"), the empty tag included, in every scenario."},
	{"CREATE-NO-TAG", Must, "Endpoints, POST /plants, rule 1", "A plant sent without a tag is answered with a Plant record without a tag (\"tag where present\"), in every scenario."},
	{"CREATE-NO-ID", Should, "Resources, Plant", "The Plant record has no id field."},
	{"OPEN-REUSED-ID", Open, "Resources, further constraints", "Uniqueness of id: not shown. A service may accept or refuse an id already stored."},
	{"OPEN-JSON-READER", Open, "What the service does (JSON, RFC 8259)", "What RFC 8259 leaves to the reader (a byte order mark, a repeated member, an escaped lone surrogate, bytes that are not UTF-8) is noted, never failed."},
	{"OPEN-INTEGRAL-ID", Open, "Resources, NewPlant (OpenAPI 3.1 integer)", "An id written with a zero fraction (2.0) is an integer in JSON Schema 2020-12; whether a service accepts it is left open."},
	{"BODY-ID-REQUIRED", Must, "Endpoints, POST /plants, rule 3", "The request body must carry id; a body without it is answered with 400 and an Error record."},
	{"BODY-ID-INTEGER", Must, "Endpoints, POST /plants, rule 3", "The request body must carry id as an integer; a string, boolean, null, object, array or fraction is answered with 400 and an Error record."},
	{"BODY-ID-INT64", Must, "Endpoints, POST /plants, rule 3", "The request body must carry id as an int64 integer; a value outside int64 is answered with 400 and an Error record."},
	{"BODY-NAME-REQUIRED", Must, "Endpoints, POST /plants, rule 3", "The request body must carry name; a body without it is answered with 400 and an Error record."},
	{"BODY-NAME-STRING", Must, "Endpoints, POST /plants, rule 3", "The request body must carry name as a string; any other JSON type, null included, is answered with 400 and an Error record."},
	{"BODY-TAG-STRING", Must, "Resources, NewPlant", "tag, where present, is a string; any other JSON type, null included, is answered with 400 and an Error record."},
	{"BODY-JSON", Must, "What the service does; rule 2", "All requests use JSON (RFC 8259): a body that is not JSON, or no body, is answered with 400 and an Error record, whatever a lenient reader would take."},
	{"BODY-OBJECT", Must, "Resources, NewPlant; rule 2", "The request body is a NewPlant record: JSON that is not an object is answered with 400 and an Error record."},
	{"BODY-ID-RANGE", Should, "Resources, NewPlant; Limits: not shown", "id takes any int64 value: zero, negative, the minimum and the maximum are accepted."},
	{"BODY-NAME-ANY", Should, "Resources, NewPlant; Limits: not shown", "name takes any string: empty, long, non-ASCII and hostile names are accepted (a refusal fails this rule; a wrong echo fails CREATE-NAME)."},
	{"BODY-TAG-ANY", Should, "Resources, NewPlant; Limits: not shown", "tag takes any string: the empty string and hostile tags are accepted (a refusal fails this rule; a wrong echo fails CREATE-TAG)."},
	{"BODY-EXTRA-FIELDS", Should, "Resources, NewPlant (schema)", "Properties the schema does not name are allowed in the request body."},
	{"GEN-VALID", Must, "Resources, NewPlant (generated from the schema)", "Every valid NewPlant record generated from the schema, with typical values, is accepted: answered with 200 and a Plant record (its echo is judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG)."},
	{"GEN-BOUNDARY", Should, "Resources, NewPlant; Limits: not shown (generated)", "Every valid NewPlant record generated with a value at an edge of its type (near the int64 bounds, empty, long or unusual strings, unknown properties) is accepted: answered with 200 and a Plant record (a wrong echo is a MUST failure of CREATE-NAME, CREATE-TAG or CREATE-NO-TAG)."},
	{"GEN-INVALID", Must, "Endpoints, POST /plants, rule 3 (generated from the schema)", "Every body generated to break exactly one rule of the NewPlant schema is answered with 400 and an Error record."},
	{"AUTH-MISSING", Must, "Authentication", "Every request carries the header Authorization: a request without it is answered with 400 and an Error record."},
	{"AUTH-SCHEME", Must, "Authentication", "The interface is protected by an HTTP bearer scheme: another scheme, or none, even with the right token, is answered with 400 and an Error record."},
	{"AUTH-EMPTY", Must, "Authentication", "The value is Bearer followed by a space and <ACCESS_TOKEN>: an empty credential is answered with 400 and an Error record."},
	{"AUTH-NEAR-MISS", Must, "Authentication", "A bearer token near the issued one (a character more, fewer or changed, its letters' case changed, written twice, its first half, a change past its 72nd byte) is not the token: it is answered with 400 and an Error record."},
	{"AUTH-UNKNOWN", Must, "Authentication", "A bearer token the service did not issue is answered with 400 and an Error record."},
	{"MEDIA-REQUEST", Must, "Endpoints, POST /plants, request body", "The request body has the media type application/json: a JSON body declared otherwise, or not declared, is answered with 400 and an Error record."},
	{"MEDIA-REQUEST-PARAMS", Should, "What the service does (media type)", "application/json with parameters, such as charset=utf-8, is application/json."},
	{"RESPONSE-MEDIA", Must, "What the service does; Endpoints, responses", "All responses use JSON (media type application/json)."},
	{"ERROR-RECORD", Must, "Errors", "An error response carries both error (an int32 integer) and message (a string)."},
	{"RESPONSE-DOCUMENTED", Must, "Endpoints, POST /plants, responses", "Every response has a documented status (200 or 400), the media type application/json, and a body that matches that status's schema."},
	{"RESPONSE-TIMELY", Must, "Limits (plantcheck's reading)", "Every answer arrives within the time limit the user sets (--timeout); a service that does not answer cannot be certified."},
}

// Lookup returns the rule with the given ID.
func Lookup(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
