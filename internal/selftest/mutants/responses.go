package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// The mutants of error records, documented responses and time.

var responseMutants = []Mutant{
	badError("error-without-message", "leaves message out of the Error record",
		"an error record built from its code alone (the message field missing from the error type)",
		func(obj map[string]any) { delete(obj, "message") }),
	badError("error-without-code", "leaves error out of the Error record",
		"a framework's default error body, which carries only a message",
		func(obj map[string]any) { delete(obj, "error") }),
	badError("error-code-string", "writes the Error record's code as a string",
		"error codes kept as strings (enum names, status texts) and serialised as such",
		func(obj map[string]any) { obj["error"] = fmt.Sprint(obj["error"]) }),
	badError("error-code-int64", "writes an Error code beyond int32 (2147483648)",
		"an error code taken from a 64-bit value (a timestamp, a hash, a big enum)",
		func(obj map[string]any) { obj["error"] = json.Number("2147483648") }),
	mutant("error-as-text", "answers errors with a plain-text sentence instead of an Error record",
		"Go's http.Error, which answers text/plain, or a framework's default error page",
		onStatus(http.StatusBadRequest, func(res *response) {
			res.header.Set("Content-Type", "text/plain; charset=utf-8")
			res.body = []byte("Bad Request\n")
		}), rules.ErrorRecord, rules.ResponseMedia, rules.ResponseDocumented),
	mutant("bom-answers", "puts a byte order mark before every answer's JSON text",
		"a PHP file saved as UTF-8 with a byte order mark, which PHP sends before any output; a writer set to encode with a preamble (.NET's Encoding.UTF8, Java's UTF-8 writers with a BOM)",
		onResponse(func(_ *http.Request, res *response) {
			if len(res.body) > 0 {
				res.body = append([]byte("\xef\xbb\xbf"), res.body...)
			}
		}), rules.ResponseJSONText),
	mutant("status-422", "answers every error with 422 Unprocessable Entity instead of 400",
		"frameworks whose validation errors default to 422: FastAPI's RequestValidationError, Rails' :unprocessable_entity, Laravel's ValidationException",
		onStatus(http.StatusBadRequest, func(res *response) { res.status = http.StatusUnprocessableEntity }), rules.ResponseDocumented, rules.AuthMissing, rules.BodyObject),
	mutant("duplicate-409", "answers a create whose id it has stored with 409 Conflict instead of 400",
		"REST conventions for a unique key broken: Spring's DataIntegrityViolationException mapped to 409, Django REST framework's and NestJS's ConflictException, a Rails rescue_from RecordNotUnique with :conflict",
		onErrorCode(8, func(res *response) { res.status = http.StatusConflict }), rules.ResponseDocumented),
	mutant("crash-500", "answers a body that is not an object with 500",
		"an unchecked type assertion on the decoded body (v.(map[string]any)) that panics and is recovered as a 500",
		onErrorCode(6, func(res *response) { res.status = http.StatusInternalServerError }), rules.BodyObject, rules.ResponseDocumented),
	mutant("missing-return", "writes a Plant record after the Error record for a body without a name (two JSON values)",
		"a Go handler missing its return after writing an error, so the success path writes too",
		onStatus(http.StatusBadRequest, func(res *response) {
			var e struct{ Message string }
			if json.Unmarshal(res.body, &e) == nil && strings.Contains(e.Message, `"name" is required`) {
				res.body = append(res.body, `{"name":""}`+"\n"...)
			}
		}), rules.ResponseDocumented),

	// Narrow siblings (issue 41) of status-422, crash-500, error-as-text and
	// text-plain-answers: the same defect on the answers real stacks give
	// it, each caught by a fixed scenario.
	mutant("status-422-validation", "answers a body whose fields break the schema with 422; every other error keeps 400",
		"Rails, where a parse error or a missing parameter is 400 and a failed model validation 422 (:unprocessable_entity); Laravel's FormRequest validation, 422, beside its other 400s",
		onErrorCode(7, func(res *response) { res.status = http.StatusUnprocessableEntity }), rules.ResponseDocumented, rules.BodyIDRequired, rules.BodyIDInteger, rules.BodyIDInt64, rules.BodyNameRequired, rules.BodyNameString, rules.BodyTagString),
	mutant("nil-body-500", "answers the body null with 500 and no body",
		"a body decoded into a pointer (var p *Plant; json.Unmarshal(body, &p)): null leaves it nil, and the nil dereference panics, answered 500 by a recovery middleware (gin's Recovery, chi's Recoverer); or const { id, name } = req.body under express.json({ strict: false })",
		onBodyAnswered(func(body []byte, res *response) {
			if res.status == http.StatusBadRequest && string(bytes.TrimSpace(body)) == "null" {
				res.status, res.body = http.StatusInternalServerError, nil
				res.header.Del("Content-Type")
			}
		}), rules.BodyObject, rules.ResponseDocumented),
	mutant("json-error-page", "answers a body that is not JSON, or whose JSON is not an object or array, with 400 and an HTML page instead of an Error record",
		"express.json()'s SyntaxError (strict: objects and arrays only) left to Express's default error handler, which answers 400 with finalhandler's HTML page",
		answerBody(readBound, bodyParserRefuses, http.StatusBadRequest, "text/html; charset=utf-8",
			"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Bad Request</pre>\n</body>\n</html>\n"), rules.ErrorRecord, rules.ResponseMedia, rules.ResponseDocumented),
	mutant("error-content-type-sniffed", "sends its Error records as text/plain; charset=utf-8 (its Plant records as application/json)",
		"a Go error helper that writes the Error record without setting Content-Type (w.WriteHeader(400); json.NewEncoder(w).Encode(e)), which net/http sniffs as text/plain; charset=utf-8, while the success path sets application/json",
		onStatus(http.StatusBadRequest, func(res *response) { res.header.Set("Content-Type", "text/plain; charset=utf-8") }), rules.ResponseMedia, rules.ResponseDocumented),

	// Singleton fields repeated (RFC 9110, section 5.3).
	mutant("content-type-twice", "sends a second Content-Type, text/plain, after its application/json one",
		"a middleware that adds its own Content-Type after the handler's (Header().Add where Set was meant, Express's res.append, PHP's header() with replace false)",
		onResponse(func(_ *http.Request, res *response) {
			res.header.Add("Content-Type", "text/plain; charset=utf-8")
		}), rules.ResponseDocumented, rules.ResponseMedia),
	mutant("content-type-same-twice", "sends Content-Type: application/json twice on its Plant records",
		"nginx's add_header Content-Type application/json in front of an upstream that sends its own (add_header adds a field, never replaces one, and only on 200 and other success answers without always)",
		onStatus(http.StatusOK, func(res *response) { res.header.Add("Content-Type", "application/json") }), rules.ResponseDocumented, rules.ResponseMedia),
	mutant("content-length-twice", "sends a second Content-Length, one more than the body, on its Error records",
		"an error filter that sets the Content-Length of the body it meant to write beside the one the framework set (a servlet filter, a header() call with replace false)",
		contentLengthTwice, rules.ResponseDocumented),

	// Time.
	{
		Name: "slow", Defect: "answers every request after two seconds",
		Rules: []rules.RuleID{rules.ResponseTimely}, Slow: true,
		Origin: "a synchronous call to a slow dependency in the request path (a lock, a DNS timeout, a cold start)",
		Wrap:   delay(2 * time.Second),
	},
	{
		Name: "silent", Defect: "never answers: it holds every request open",
		Rules: []rules.RuleID{rules.ResponseTimely}, Slow: true,
		Origin: "a deadlock, or a handler waiting on a channel nobody sends to, with no server timeouts",
		Wrap:   delay(time.Hour),
	},
}

// contentLengthTwice answers as the reference does, but for a second
// Content-Length field on each 400 answer, which counts a byte more than
// the body: Go's client refuses such an answer (a transport error), as a
// client must that cannot tell which length frames it (RFC 9112, section
// 6.3).
var contentLengthTwice = onStatus(http.StatusBadRequest, func(res *response) {
	res.header["Content-Length"] = []string{strconv.Itoa(len(res.body)), strconv.Itoa(len(res.body) + 1)}
})

// bodyParserRefuses says whether express.json() refuses a body with a
// SyntaxError: it skips an empty body, drops a byte order mark, reads the
// rest as UTF-8 (a byte that is not, as U+FFFD), and in its strict mode
// takes only an object or an array.
func bodyParserRefuses(body []byte) bool {
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(b) == 0 {
		return false
	}
	return b[0] != '{' && b[0] != '[' || !json.Valid(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// badError is a mutant that changes the JSON object of the Error record.
func badError(name, defect, origin string, change func(map[string]any)) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented},
		Wrap: onJSONResponse(http.StatusBadRequest, change)}
}
