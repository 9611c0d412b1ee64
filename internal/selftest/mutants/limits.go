package mutants

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// The mutants of limits the spec leaves open ("Limits: not shown"): each
// refuses a request past a size or a depth, as a real stack's default
// does, but with an answer the document does not describe.

var limitMutants = []Mutant{
	mutant("body-limit-413", "refuses a body over 100 KiB with 413 and an HTML page",
		"express's body-parser, whose json() limit defaults to 100kb: a PayloadTooLargeError, answered 413 with finalhandler's HTML page",
		overBody(100<<10, http.StatusRequestEntityTooLarge, "text/html; charset=utf-8",
			"<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>Error</title></head>\n<body><pre>PayloadTooLargeError: request entity too large</pre></body>\n</html>\n"), rules.ResponseDocumented),
	mutant("fixed-buffer-500", "answers 500 to a body past a fixed buffer of 12 KiB",
		"a handler that reads the body into a fixed buffer (char buf[12288], a pooled slice) and fails past it, the failure mapped to 500",
		overBody(12<<10, http.StatusInternalServerError, "application/json", `{"error":500,"message":"internal error"}`), rules.ResponseDocumented),
	mutant("body-limit-html-400", "refuses a body over 256 KiB with 400 and an HTML page instead of an Error record",
		"a front end's own error page for a body past its limit (nginx and most gateways write theirs in HTML), served under 400",
		overBody(256<<10, http.StatusBadRequest, "text/html",
			"<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"), rules.ErrorRecord, rules.ResponseDocumented, rules.ResponseMedia),
	mutant("body-limit-900k-413", "refuses a body of 900 KiB or more with 413",
		"a body limit set just under a megabyte (client_max_body_size 900k, a MaxBytesReader of 900 KiB) answering 413 with a plain page",
		overBody(900<<10, http.StatusRequestEntityTooLarge, "text/plain; charset=utf-8", "request body too large\n"), rules.ResponseDocumented),
	mutant("header-limit-431", "answers 431 to a header line over 4 KiB",
		"a server with a small header buffer: Node.js answered 431 past 8 KiB of headers before 13.13, uWSGI's buffer-size defaults to 4 KiB",
		overHeader(4<<10, http.StatusRequestHeaderFieldsTooLarge, "text/plain; charset=utf-8", "Request Header Fields Too Large\n"), rules.HeaderSize),
	mutant("header-limit-html-400", "answers a header line over 1 KiB with 400 and an HTML page",
		"nginx with its header buffers turned down (large_client_header_buffers 4 1k): 400 \"Request Header Or Cookie Too Large\", an HTML page",
		overHeader(1<<10, http.StatusBadRequest, "text/html",
			"<html>\r\n<head><title>400 Request Header Or Cookie Too Large</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>Request Header Or Cookie Too Large</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"), rules.HeaderSize),
	mutant("nesting-limit-500", "answers 500 to a body nested more than 1,000 levels deep",
		"Python's json module, which recurses once a level and raises RecursionError near the interpreter's limit of 1,000; Flask answers it 500 with an HTML page",
		overDepth(1000, http.StatusInternalServerError, "text/html; charset=utf-8",
			"<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n<h1>Internal Server Error</h1>\n<p>The server encountered an internal error and was unable to complete your request.</p>\n"), rules.ResponseDocumented),
	mutant("nesting-limit-json-400", "refuses a body nested more than 1,000 levels deep with 400 and a JSON body that is not an Error record",
		"Jackson 2.15 and later (StreamReadConstraints: a nesting depth of 1,000), which Spring Boot answers 400 with its own error body",
		overDepth(1000, http.StatusBadRequest, "application/json",
			`{"timestamp":"2026-11-24T10:00:00.000+00:00","status":400,"error":"Bad Request","path":"/plants"}`), rules.ErrorRecord, rules.ResponseDocumented),
}

// readBound bounds what a limit's mutant reads of a body: past the
// reference's own limit (1 MiB), so that a body it cuts is one the
// reference refuses too.
const readBound = 2 << 20

// overBody answers a request whose body is longer than limit bytes with
// status, contentType and body, before the reference sees it.
func overBody(limit int, status int, contentType, body string) wrapper {
	return answerBody(readBound, func(b []byte) bool { return len(b) > limit }, status, contentType, body)
}

// overDepth answers a request whose body nests arrays and objects more
// than limit levels deep as overBody does.
func overDepth(limit int, status int, contentType, body string) wrapper {
	return answerBody(readBound, func(b []byte) bool { return Nesting(b) > limit }, status, contentType, body)
}

// overHeader answers a request with a header line (name, ": " and value)
// longer than limit bytes as overBody does.
func overHeader(limit int, status int, contentType, body string) wrapper {
	return answerWhen(func(r *http.Request) bool {
		for name, vs := range r.Header {
			for _, v := range vs {
				if len(name)+2+len(v) > limit {
					return true
				}
			}
		}
		return false
	}, status, contentType, body)
}

// Nesting is how deep a JSON text nests arrays and objects, as far as it
// reads as JSON.
func Nesting(b []byte) int {
	d := json.NewDecoder(bytes.NewReader(b))
	deepest, at := 0, 0
	for {
		t, err := d.Token()
		if err != nil {
			return deepest
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			at++
			deepest = max(deepest, at)
		case json.Delim(']'), json.Delim('}'):
			at--
		}
	}
}
