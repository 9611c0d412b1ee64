package reference

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// errorKind is one class of failure. Each has one row in errorTable.
type errorKind int

const (
	errAuthentication errorKind = iota + 1
	errMediaType
	errBodyTooLarge
	errBodyUnreadable
	errMalformedJSON
	errNotAnObject
	errInvalidField
	errDuplicateID
	errNotFound
	errMethodNotAllowed
	errInternal // kept last: TestErrorTableCodesAreDistinct counts the kinds by it
)

// errorTable maps each kind of failure to the HTTP status it is answered
// with and the value of the Error record's "error" field. The codes are
// written by hand and never reused, so a client may rely on them.
//
// The document has one error response, 400 with an Error record, so every
// failure caused by a request to POST /plants is a 400, including an
// oversize body (no 413) and a missing credential (no 401). Other paths and
// methods are "not shown": they get the usual 404 and 405, still with an
// Error record. Only the store's own failure is a 5xx, and MemoryStore never
// fails. Code 12 is retired (it refused a request with both Content-Length
// and Transfer-Encoding, which is now served by its Transfer-Encoding, and its
// connection closed: ServeHTTP).
var errorTable = map[errorKind]struct {
	status int
	code   int32
}{
	errAuthentication:   {http.StatusBadRequest, 1},
	errMediaType:        {http.StatusBadRequest, 2},
	errBodyTooLarge:     {http.StatusBadRequest, 3},
	errBodyUnreadable:   {http.StatusBadRequest, 4},
	errMalformedJSON:    {http.StatusBadRequest, 5},
	errNotAnObject:      {http.StatusBadRequest, 6},
	errInvalidField:     {http.StatusBadRequest, 7},
	errDuplicateID:      {http.StatusBadRequest, 8},
	errNotFound:         {http.StatusNotFound, 9},
	errMethodNotAllowed: {http.StatusMethodNotAllowed, 10},
	errInternal:         {http.StatusInternalServerError, 11},
}

// requestError is a failure to answer with an Error record. Its message is
// written for the client: a fixed sentence that never quotes the request, so
// it cannot leak the token or reflect the body.
type requestError struct {
	kind    errorKind
	message string
}

func (e *requestError) Error() string { return e.message }

func fail(kind errorKind, message string) *requestError {
	return &requestError{kind: kind, message: message}
}

// errorRecord is the document's Error schema.
type errorRecord struct {
	Error   int32  `json:"error"`
	Message string `json:"message"`
}

// writeError answers with the status and Error record of e's kind.
func writeError(w http.ResponseWriter, e *requestError) {
	row := errorTable[e.kind]
	writeJSON(w, row.status, errorRecord{Error: row.code, Message: e.message})
}

// writeJSON answers with status and v as application/json.
func writeJSON(w http.ResponseWriter, status int, v any) {
	// v is always one of this package's records, strings and integers only,
	// which cannot fail to encode.
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	// Declared, so that an answer past the server's buffer goes with its
	// length rather than in chunks.
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(body)
	w.Write([]byte{'\n'})
}
