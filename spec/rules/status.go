package rules

import "net/http"

// expects is the status a rule calls for in the answers its scenarios
// judge: refusals 400, acceptances 200. Rules about every answer (its
// media type, its documentation, its time) call for none.
var expects = map[RuleID]int{
	Create200: http.StatusOK, CreateName: http.StatusOK, CreateTag: http.StatusOK, CreateNoTag: http.StatusOK,
	CreateNoID: http.StatusOK, BodyIDRange: http.StatusOK, BodyNameAny: http.StatusOK, BodyTagAny: http.StatusOK,
	BodyExtraFields: http.StatusOK, GenValid: http.StatusOK, GenBoundary: http.StatusOK, MediaRequestParams: http.StatusOK, MediaAccept: http.StatusOK,

	BodyIDRequired: http.StatusBadRequest, BodyIDInteger: http.StatusBadRequest, BodyIDInt64: http.StatusBadRequest,
	BodyNameRequired: http.StatusBadRequest, BodyNameString: http.StatusBadRequest, BodyTagString: http.StatusBadRequest,
	BodyJSON: http.StatusBadRequest, BodyObject: http.StatusBadRequest, GenInvalid: http.StatusBadRequest,
	AuthMissing: http.StatusBadRequest, AuthScheme: http.StatusBadRequest, AuthEmpty: http.StatusBadRequest,
	AuthNearMiss: http.StatusBadRequest, AuthUnknown: http.StatusBadRequest, MediaRequest: http.StatusBadRequest,
	ErrorRecord: http.StatusBadRequest,
}

// Expects returns the status the rule calls for (0: none in particular).
func Expects(id RuleID) int { return expects[id] }

// Documented reports whether the document has a response of this status
// for POST /plants: 200 (a Plant record) and 400 (an Error record), each
// application/json.
func Documented(status int) bool {
	return status == http.StatusOK || status == http.StatusBadRequest
}

// DocumentedMedia is the one media type of the document's responses.
const DocumentedMedia = "application/json"
