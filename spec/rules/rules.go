// Package rules is the catalog of the Plant Store spec's rules that
// plantcheck checks: each rule's ID, level, requirement and the part of the
// spec it comes from. The Gherkin scenarios that encode the rules live in
// package features; the judge, the verdict and every report name a rule by
// its typed ID from here. It sits beside the document (package spec)
// because it is the spec's own requirements, given IDs: the features cite
// it by tag, and the judge, the verdict and the mutants need its IDs without
// the Gherkin.
package rules

import "strings"

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

// RuleID names a rule of the catalog, such as CREATE-200. IDs are written
// by hand and never reused.
type RuleID string

// The rule IDs, one constant each: Go code names a rule by its constant,
// never by a string, so that a mistyped ID does not compile and a renamed
// one is renamed everywhere.
const (
	Create200          RuleID = "CREATE-200"
	CreateName         RuleID = "CREATE-NAME"
	CreateTag          RuleID = "CREATE-TAG"
	CreateNoTag        RuleID = "CREATE-NO-TAG"
	CreateNoID         RuleID = "CREATE-NO-ID"
	OpenReusedID       RuleID = "OPEN-REUSED-ID"
	OpenJSONReader     RuleID = "OPEN-JSON-READER"
	OpenIntegralID     RuleID = "OPEN-INTEGRAL-ID"
	BodyIDRequired     RuleID = "BODY-ID-REQUIRED"
	BodyIDInteger      RuleID = "BODY-ID-INTEGER"
	BodyIDInt64        RuleID = "BODY-ID-INT64"
	BodyNameRequired   RuleID = "BODY-NAME-REQUIRED"
	BodyNameString     RuleID = "BODY-NAME-STRING"
	BodyTagString      RuleID = "BODY-TAG-STRING"
	BodyJSON           RuleID = "BODY-JSON"
	BodyObject         RuleID = "BODY-OBJECT"
	BodyIDRange        RuleID = "BODY-ID-RANGE"
	BodyNameAny        RuleID = "BODY-NAME-ANY"
	BodyTagAny         RuleID = "BODY-TAG-ANY"
	BodyExtraFields    RuleID = "BODY-EXTRA-FIELDS"
	GenValid           RuleID = "GEN-VALID"
	GenBoundary        RuleID = "GEN-BOUNDARY"
	GenInvalid         RuleID = "GEN-INVALID"
	AuthMissing        RuleID = "AUTH-MISSING"
	AuthScheme         RuleID = "AUTH-SCHEME"
	AuthEmpty          RuleID = "AUTH-EMPTY"
	AuthNearMiss       RuleID = "AUTH-NEAR-MISS"
	AuthUnknown        RuleID = "AUTH-UNKNOWN"
	AuthSchemeCase     RuleID = "AUTH-SCHEME-CASE"
	MediaRequest       RuleID = "MEDIA-REQUEST"
	MediaRequestParams RuleID = "MEDIA-REQUEST-PARAMS"
	MediaAccept        RuleID = "MEDIA-ACCEPT"
	OpenAcceptOther    RuleID = "OPEN-ACCEPT-OTHER"
	ResponseMedia      RuleID = "RESPONSE-MEDIA"
	ResponseJSONText   RuleID = "RESPONSE-JSON-TEXT"
	ErrorRecord        RuleID = "ERROR-RECORD"
	ResponseDocumented RuleID = "RESPONSE-DOCUMENTED"
	ResponseTimely     RuleID = "RESPONSE-TIMELY"
	HeaderSize         RuleID = "HEADER-SIZE"
)

// Rule is one requirement of the spec, as the suite checks it.
type Rule struct {
	ID    RuleID `json:"id"`
	Level Level  `json:"level"`
	// Source is the part of the specification the rule comes from.
	Source string `json:"source"`
	// Requirement is the requirement, in the spec's words where it has them.
	Requirement string `json:"requirement"`
}

// Catalog is the catalog: every rule of the spec the suite checks, in the order
// a reader meets them. IDs are written by hand and never reused.
var Catalog = []Rule{
	{Create200, Must, "Endpoints, POST /plants, rule 1", "When the request is valid, then the service answers with status 200 and a Plant record, however the request's JSON is spelled and its HTTP framed."},
	{CreateName, Must, "Endpoints, POST /plants, rule 1", "The Plant record answered with 200 carries the very name that was sent, code point for code point, in every scenario."},
	{CreateTag, Must, "Endpoints, POST /plants, rule 1", "The Plant record answered with 200 carries the very tag that was sent (\"tag where present\"), the empty tag included, in every scenario."},
	{CreateNoTag, Must, "Endpoints, POST /plants, rule 1", "A plant sent without a tag is answered with a Plant record without a tag (\"tag where present\"), in every scenario."},
	{CreateNoID, Must, "Resources, Plant", "The Plant record has no id field: a Plant record answered with 200 carries no id, in every scenario."},
	{OpenReusedID, Open, "Resources, further constraints", "Uniqueness of id: not shown. A service may accept or refuse an id already stored."},
	{OpenJSONReader, Open, "What the service does (JSON, RFC 8259)", "What RFC 8259 leaves to the reader (a byte order mark, a repeated member, an escaped lone surrogate, bytes that are not UTF-8) is noted, never failed."},
	{OpenIntegralID, Open, "Resources, NewPlant (OpenAPI 3.1 integer)", "An id written with a zero fraction (2.0) is an integer in JSON Schema 2020-12; whether a service accepts it is left open."},
	{BodyIDRequired, Must, "Endpoints, POST /plants, rule 3", "The request body must carry id; a body without it is answered with 400 and an Error record."},
	{BodyIDInteger, Must, "Endpoints, POST /plants, rule 3", "The request body must carry id as an integer; a string, boolean, null, object, array or fraction is answered with 400 and an Error record."},
	{BodyIDInt64, Must, "Endpoints, POST /plants, rule 3", "The request body must carry id as an int64 integer; a value outside int64 is answered with 400 and an Error record."},
	{BodyNameRequired, Must, "Endpoints, POST /plants, rule 3", "The request body must carry name; a body without it is answered with 400 and an Error record."},
	{BodyNameString, Must, "Endpoints, POST /plants, rule 3", "The request body must carry name as a string; any other JSON type, null included, is answered with 400 and an Error record."},
	{BodyTagString, Must, "Resources, NewPlant", "tag, where present, is a string; any other JSON type, null included, is answered with 400 and an Error record."},
	{BodyJSON, Must, "What the service does; rule 2", "All requests use JSON (RFC 8259): a body that is not JSON, or no body, is answered with 400 and an Error record, whatever a lenient reader would take."},
	{BodyObject, Must, "Resources, NewPlant; rule 2", "The request body is a NewPlant record: JSON that is not an object is answered with 400 and an Error record."},
	{BodyIDRange, Should, "Resources, NewPlant; Limits: not shown", "id takes any int64 value: zero, negative, the minimum and the maximum are accepted."},
	{BodyNameAny, Should, "Resources, NewPlant; Limits: not shown", "name takes any string: empty, long, non-ASCII and hostile names are accepted (a refusal fails this rule; a wrong echo fails CREATE-NAME)."},
	{BodyTagAny, Should, "Resources, NewPlant; Limits: not shown", "tag takes any string: the empty string and hostile tags are accepted (a refusal fails this rule; a wrong echo fails CREATE-TAG)."},
	{BodyExtraFields, Should, "Resources, NewPlant (schema)", "Properties the schema does not name are allowed in the request body."},
	{GenValid, Must, "Resources, NewPlant (generated from the schema)", "Every valid NewPlant record generated from the schema, with typical values, is accepted: answered with 200 and a Plant record (its echo is judged under CREATE-NAME, CREATE-TAG and CREATE-NO-TAG)."},
	{GenBoundary, Should, "Resources, NewPlant; Limits: not shown (generated)", "Every valid NewPlant record generated with a value at an edge of its type (near the int64 bounds, empty, long or unusual strings, unknown properties) is accepted: answered with 200 and a Plant record (a wrong echo is a MUST failure of CREATE-NAME, CREATE-TAG or CREATE-NO-TAG)."},
	{GenInvalid, Must, "Endpoints, POST /plants, rule 3 (generated from the schema)", "Every body generated to break exactly one rule of the NewPlant schema is answered with 400 and an Error record."},
	{AuthMissing, Must, "Authentication", "Every request carries the header Authorization: a request without it is answered with 400 and an Error record."},
	{AuthScheme, Must, "Authentication", "The interface is protected by an HTTP bearer scheme: another scheme, or none, even with the right token, is answered with 400 and an Error record."},
	{AuthEmpty, Must, "Authentication", "The value is Bearer followed by a space and <ACCESS_TOKEN>: an empty credential is answered with 400 and an Error record."},
	{AuthNearMiss, Must, "Authentication", "A bearer token near the issued one (a character more, fewer or changed, its letters' case changed, written twice, its first half, a change past its 72nd byte; its base64 padding added or removed, base64's other alphabet, a character percent-encoded, a space inside, a character in its full-width form) is not the token: it is answered with 400 and an Error record."},
	{AuthUnknown, Must, "Authentication", "A bearer token the service did not issue is answered with 400 and an Error record."},
	{AuthSchemeCase, Should, "Authentication; RFC 9110, section 11.1", "The scheme is case-insensitive in HTTP: the issued token under the scheme written bearer or BEARER should be accepted as under Bearer (200 and a Plant record). The spec writes Bearer, so a refusal, 400 with an Error record, fails this SHOULD rule only."},
	{MediaRequest, Must, "Endpoints, POST /plants, request body", "The request body has the media type application/json: a JSON body declared otherwise, or not declared, is answered with 400 and an Error record."},
	{MediaRequestParams, Must, "What the service does (media type); RFC 9110, RFC 8259", "application/json with parameters, such as charset=utf-8, and in every spelling RFC 9110 calls equal (the type, subtype and parameter name in any case, the charset value in any case or quoted, white space around the \";\"), is application/json: a valid request declared so is answered with 200 and a Plant record."},
	{MediaAccept, Must, "What the service does (JSON); Endpoints, POST /plants, rule 1; RFC 9110, sections 8.3.1 and 12.5.1", "A valid request whose Accept header admits application/json, in any spelling RFC 9110 calls equal (the type in any letter case, with parameters or a weight, in a list, or as the range application/* or */*), is answered with 200 and a Plant record."},
	{OpenAcceptOther, Open, "What the service does (JSON); RFC 9110, sections 12.5.1 and 15.5.7", "A valid request whose Accept header admits no application/json (text/html alone) asks for what the service never sends, and the spec does not say what it answers: 200 with a Plant record, 400 with an Error record or 406 (with any body) is noted, never failed."},
	{ResponseMedia, Must, "What the service does; Endpoints, responses", "All responses use JSON (media type application/json)."},
	{ResponseJSONText, Must, "What the service does (JSON); RFC 8259, section 8.1", "Every response body is JSON text as RFC 8259 has a sender write it, with no byte order mark (U+FEFF) before it: a reader that does not skip the mark, as RFC 8259 lets a reader do, reads no JSON."},
	{ErrorRecord, Must, "Errors", "An error response carries both error (an int32 integer) and message (a string)."},
	{ResponseDocumented, Must, "Endpoints, POST /plants, responses", "Every response has a documented status (200 or 400), the media type application/json, and a body that matches that status's schema."},
	{HeaderSize, Should, "Limits: not shown (a header limit is the infrastructure's in front)", "A valid request with a header field of a few KiB, within the 8 KiB a line that common front ends read (nginx, Apache), is answered as the contract says: 200 with a Plant record, or 400 with an Error record. Any other answer to it fails this rule, never a MUST."},
	{ResponseTimely, Must, "Limits (plantcheck's reading)", "Every request is answered, whole, within the time limit the user sets (--timeout): a connection the target resets or closes with no answer, even when the request is sent again alone on a fresh connection, is no answer; a service that does not answer cannot be certified."},
}

// Lookup returns the rule with the given ID.
func Lookup(id RuleID) (Rule, bool) {
	for _, r := range Catalog {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// JoinIDs writes rule IDs as one string, separated by sep.
func JoinIDs(ids []RuleID, sep string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return strings.Join(out, sep)
}
