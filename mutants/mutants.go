// Package mutants holds deliberately broken Plant Store servers: each is the
// reference server with exactly one defect against one rule of the spec. The
// suite proves it can fail by failing every one of them, and by naming the
// rule each breaks.
//
// A mutant wraps the reference handler and changes the request it sees or
// the response it gives, so the reference itself stays the plainest honest
// implementation.
package mutants

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Mutant is one broken server.
type Mutant struct {
	// Name is a short stable identifier.
	Name string
	// Defect says what is wrong, in a sentence.
	Defect string
	// Rules are the rules a suite must name when it catches the defect (any
	// one of them will do).
	Rules []string
	// Slow marks a mutant that answers late: run it with a short timeout.
	Slow bool
	// Wrap builds the broken handler around the reference's.
	Wrap func(ref http.Handler, token string) http.Handler
}

// All is every mutant, in a stable order: by the part of the contract it
// breaks. Together they break every MUST rule of the catalog at least once
// (a test checks it).
var All = []Mutant{
	// Creating a plant: the answer to a valid request.
	{
		Name: "status-201", Defect: "answers a valid create with 201 instead of 200",
		Rules: []string{"CREATE-200", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.status = http.StatusCreated
			}
		}),
	},
	{
		Name: "reject-valid", Defect: "answers a valid create with 400 and an Error record",
		Rules: []string{"CREATE-200"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.status, res.body = http.StatusBadRequest, []byte(`{"error":99,"message":"No plants today."}`)
			}
		}),
	},
	{
		Name: "empty-200", Defect: "answers a valid create with 200 and an empty body",
		Rules: []string{"CREATE-200", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.body = nil
			}
		}),
	},
	{
		Name: "upper-case-name", Defect: "answers with the name sent in upper case",
		Rules: []string{"CREATE-NAME"},
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if name, ok := obj["name"].(string); ok {
				obj["name"] = strings.ToUpper(name)
			}
		}),
	},
	{
		Name: "drop-name", Defect: "leaves the name out of the Plant record",
		Rules: []string{"CREATE-NAME", "CREATE-200", "RESPONSE-DOCUMENTED"},
		Wrap:  onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "name") }),
	},
	{
		Name: "drop-tag", Defect: "leaves the tag out of the Plant record",
		Rules: []string{"CREATE-TAG"},
		Wrap:  onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "tag") }),
	},
	{
		Name: "invent-tag", Defect: "answers a plant sent without a tag with a default tag",
		Rules: []string{"CREATE-NO-TAG"},
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if _, ok := obj["tag"]; !ok {
				obj["tag"] = "untagged"
			}
		}),
	},
	{
		Name: "null-tag", Defect: "answers a plant sent without a tag with \"tag\": null",
		Rules: []string{"CREATE-NO-TAG", "RESPONSE-DOCUMENTED"},
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if _, ok := obj["tag"]; !ok {
				obj["tag"] = nil
			}
		}),
	},
	{
		Name: "echo-id", Defect: "puts the id in the Plant record (a SHOULD rule)",
		Rules: []string{"CREATE-NO-ID"},
		Wrap: func(ref http.Handler, token string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, id := peekID(r)
				onJSONResponse(http.StatusOK, func(obj map[string]any) {
					if id != nil {
						obj["id"] = id
					}
				})(ref, token).ServeHTTP(w, withBody(r, body))
			})
		},
	},

	// The request body.
	{
		Name: "accept-missing-id", Defect: "accepts a body without an id",
		Rules: []string{"BODY-ID-REQUIRED"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if _, ok := obj["id"]; !ok {
				obj["id"] = freshID()
			}
		}),
	},
	{
		Name: "accept-string-id", Defect: "accepts an id written as a JSON string",
		Rules: []string{"BODY-ID-INTEGER"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if s, ok := obj["id"].(string); ok {
				if _, err := strconv.ParseInt(s, 10, 64); err == nil {
					obj["id"] = json.Number(s)
				}
			}
		}),
	},
	{
		Name: "truncate-fraction-id", Defect: "reads an id of 1.5 as 1 instead of rejecting it",
		Rules: []string{"BODY-ID-INTEGER"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if n, ok := obj["id"].(json.Number); ok {
				if whole, _, found := strings.Cut(n.String(), "."); found && !strings.ContainsAny(n.String(), "eE") {
					obj["id"] = json.Number(whole)
				}
			}
		}),
	},
	{
		Name: "float64-id", Defect: "reads the id as a float64, so ids just outside int64 are accepted",
		Rules: []string{"BODY-ID-INT64"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if n, ok := obj["id"].(json.Number); ok {
				if f, err := n.Float64(); err == nil && (f >= math.MaxInt64 || f <= math.MinInt64) {
					obj["id"] = json.Number(strconv.FormatInt(freshID(), 10))
				}
			}
		}),
	},
	{
		Name: "accept-missing-name", Defect: "accepts a body without a name",
		Rules: []string{"BODY-NAME-REQUIRED"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if _, ok := obj["name"]; !ok {
				obj["name"] = "unnamed"
			}
		}),
	},
	{
		Name: "stringify-name", Defect: "accepts a name of any JSON type, turned into text",
		Rules: []string{"BODY-NAME-STRING"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["name"]; ok {
				if _, isString := v.(string); !isString {
					obj["name"] = fmt.Sprint(v)
				}
			}
		}),
	},
	{
		Name: "null-name-is-empty", Defect: "reads a null name as the empty string",
		Rules: []string{"BODY-NAME-STRING"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["name"]; ok && v == nil {
				obj["name"] = ""
			}
		}),
	},
	{
		Name: "drop-bad-tag", Defect: "ignores a tag that is not a string instead of rejecting it",
		Rules: []string{"BODY-TAG-STRING"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["tag"]; ok {
				if _, isString := v.(string); !isString {
					delete(obj, "tag")
				}
			}
		}),
	},
	{
		Name: "lenient-json", Defect: "accepts a malformed or empty body as a plant",
		Rules: []string{"BODY-JSON"},
		Wrap: onRawRequest(func(body []byte) []byte {
			if !json.Valid(body) {
				return []byte(fmt.Sprintf(`{"id":%d,"name":"salvaged"}`, freshID()))
			}
			return body
		}),
	},
	{
		Name: "unwrap-array", Defect: "accepts a body that is not an object, taking its first plant or a default",
		Rules: []string{"BODY-OBJECT"},
		Wrap: onRawRequest(func(body []byte) []byte {
			var v any
			if json.Unmarshal(body, &v) != nil {
				return body
			}
			if _, isObject := v.(map[string]any); isObject {
				return body
			}
			return []byte(fmt.Sprintf(`{"id":%d,"name":"unwrapped"}`, freshID()))
		}),
	},

	// Classes of values that the generated scenarios exercise beyond the
	// hand-written examples.
	{
		Name: "int32-id", Defect: "keeps ids in an int32: a valid id beyond it is refused",
		Rules: []string{"GEN-VALID", "CREATE-200"},
		Wrap: onRequestRefused(func(obj map[string]any) bool {
			n, ok := obj["id"].(json.Number)
			if !ok {
				return false
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			return err == nil && (v > math.MaxInt32 || v < math.MinInt32)
		}),
	},
	{
		Name: "loose-tag-type", Defect: "takes a boolean tag as text instead of rejecting it",
		Rules: []string{"BODY-TAG-STRING", "GEN-INVALID"},
		Wrap: onJSONRequest(func(obj map[string]any) {
			if b, ok := obj["tag"].(bool); ok {
				obj["tag"] = strconv.FormatBool(b)
			}
		}),
	},
	{
		Name: "ascii-names-only", Defect: "refuses a name that is not plain ASCII",
		Rules: []string{"GEN-VALID", "GEN-BOUNDARY", "BODY-NAME-ANY"},
		Wrap: onRequestRefused(func(obj map[string]any) bool {
			name, ok := obj["name"].(string)
			return ok && strings.IndexFunc(name, func(r rune) bool { return r > 0x7e }) >= 0
		}),
	},
	{
		Name: "tag-required", Defect: "treats the optional tag as required",
		Rules: []string{"GEN-VALID", "CREATE-NO-TAG"},
		Wrap: onRequestRefused(func(obj map[string]any) bool {
			_, ok := obj["tag"]
			return !ok
		}),
	},

	// Authentication.
	{
		Name: "ignore-token", Defect: "accepts any request, whatever its credentials",
		Rules: []string{"AUTH-MISSING", "AUTH-SCHEME", "AUTH-EMPTY", "AUTH-UNKNOWN"},
		Wrap:  onAuthorization(func(_ string, token string) string { return "Bearer " + token }),
	},
	{
		Name: "anonymous-allowed", Defect: "accepts a request without an Authorization header",
		Rules: []string{"AUTH-MISSING"},
		Wrap: onAuthorization(func(value, token string) string {
			if value == "" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "any-scheme", Defect: "accepts the token in any scheme, Basic included",
		Rules: []string{"AUTH-SCHEME"},
		Wrap: onAuthorization(func(value, token string) string {
			if _, cred, ok := strings.Cut(value, " "); ok && cred == token {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "empty-credential-allowed", Defect: "accepts Bearer with an empty credential",
		Rules: []string{"AUTH-EMPTY"},
		Wrap: onAuthorization(func(value, token string) string {
			if strings.TrimSpace(value) == "Bearer" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "any-bearer-token", Defect: "accepts any non-empty bearer token, issued or not",
		Rules: []string{"AUTH-UNKNOWN"},
		Wrap: onAuthorization(func(value, token string) string {
			if scheme, cred, ok := strings.Cut(value, " "); ok && scheme == "Bearer" && cred != "" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "auth-401", Defect: "answers bad credentials with 401, a status the document does not have",
		Rules: []string{"AUTH-MISSING", "AUTH-SCHEME", "AUTH-EMPTY", "AUTH-UNKNOWN", "RESPONSE-DOCUMENTED"},
		Wrap:  onErrorCode(1, func(res *response) { res.status = http.StatusUnauthorized }),
	},

	// Media types.
	{
		Name: "ignore-media-type", Defect: "accepts a JSON body whatever media type it is declared as",
		Rules: []string{"MEDIA-REQUEST"},
		Wrap: func(ref http.Handler, _ string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Set("Content-Type", "application/json")
				ref.ServeHTTP(w, r)
			})
		},
	},
	{
		Name: "text-plain-answers", Defect: "sends its records as text/plain",
		Rules: []string{"RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			res.header.Set("Content-Type", "text/plain; charset=utf-8")
		}),
	},
	{
		Name: "no-content-type", Defect: "sends its records without a Content-Type",
		Rules: []string{"RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			res.header.Del("Content-Type")
			res.header["Content-Type"] = nil // keep net/http from sniffing one
		}),
	},

	// Error records and documented responses.
	{
		Name: "error-without-message", Defect: "leaves message out of the Error record",
		Rules: []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"},
		Wrap:  onJSONResponse(http.StatusBadRequest, func(obj map[string]any) { delete(obj, "message") }),
	},
	{
		Name: "error-without-code", Defect: "leaves error out of the Error record",
		Rules: []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"},
		Wrap:  onJSONResponse(http.StatusBadRequest, func(obj map[string]any) { delete(obj, "error") }),
	},
	{
		Name: "error-code-string", Defect: "writes the Error record's code as a string",
		Rules: []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"},
		Wrap: onJSONResponse(http.StatusBadRequest, func(obj map[string]any) {
			obj["error"] = fmt.Sprint(obj["error"])
		}),
	},
	{
		Name: "error-code-int64", Defect: "writes an Error code beyond int32 (2147483648)",
		Rules: []string{"ERROR-RECORD", "RESPONSE-DOCUMENTED"},
		Wrap: onJSONResponse(http.StatusBadRequest, func(obj map[string]any) {
			obj["error"] = json.Number("2147483648")
		}),
	},
	{
		Name: "error-as-text", Defect: "answers errors with a plain-text sentence instead of an Error record",
		Rules: []string{"ERROR-RECORD", "RESPONSE-MEDIA", "RESPONSE-DOCUMENTED"},
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusBadRequest {
				res.header.Set("Content-Type", "text/plain; charset=utf-8")
				res.body = []byte("Bad Request\n")
			}
		}),
	},
	{
		Name: "crash-500", Defect: "answers a body that is not an object with 500",
		Rules: []string{"BODY-OBJECT", "RESPONSE-DOCUMENTED"},
		Wrap:  onErrorCode(6, func(res *response) { res.status = http.StatusInternalServerError }),
	},

	// Time.
	{
		Name: "slow", Defect: "answers every request after two seconds",
		Rules: []string{"RESPONSE-TIMELY"}, Slow: true,
		Wrap: delay(2 * time.Second),
	},
	{
		Name: "silent", Defect: "never answers: it holds every request open",
		Rules: []string{"RESPONSE-TIMELY"}, Slow: true,
		Wrap: delay(time.Hour),
	},
}

// onRequestRefused answers 400 with an Error record, as the reference
// would, to the JSON object requests that refuse says to refuse.
func onRequestRefused(refuse func(map[string]any) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if d.Decode(&obj) == nil && obj != nil && refuse(obj) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":42,"message":"This plant is not accepted here."}`)
				return
			}
			ref.ServeHTTP(w, withBody(r, body))
		})
	}
}

// onErrorCode changes the reference's answers that carry one Error code
// (its codes are listed in reference/errors.go: 1 is bad credentials, 6 a
// body that is not an object).
func onErrorCode(code int, change func(*response)) func(http.Handler, string) http.Handler {
	marker := []byte(fmt.Sprintf(`"error":%d,`, code))
	return onResponse(func(_ *http.Request, res *response) {
		if res.status == http.StatusBadRequest && bytes.HasPrefix(res.body, append([]byte("{"), marker...)) {
			change(res)
		}
	})
}

// delay answers after d, or never when the client gives up first.
func delay(d time.Duration) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// onAuthorization rewrites the Authorization header (its value, or "" when
// absent) before the reference sees it.
func onAuthorization(change func(value, token string) string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := change(r.Header.Get("Authorization"), token); v != "" {
				r.Header.Set("Authorization", v)
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// onRawRequest rewrites the request body, whatever it holds.
func onRawRequest(change func([]byte) []byte) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			ref.ServeHTTP(w, withBody(r, change(body)))
		})
	}
}

// peekID reads the request body and returns it with its id, if any.
func peekID(r *http.Request) ([]byte, any) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&obj) != nil {
		return body, nil
	}
	return body, obj["id"]
}

// withBody gives r the body b.
func withBody(r *http.Request, b []byte) *http.Request {
	r.Body = http.NoBody
	if len(b) > 0 {
		r.Body = readCloser{bytes.NewReader(b)}
	}
	r.ContentLength = int64(len(b))
	return r
}

// freshID is an id no scenario will have used.
func freshID() int64 { return time.Now().UnixNano() + idCounter.Add(1) }

var idCounter atomic.Int64

// response is a recorded response, open to change before it is sent.
type response struct {
	status int
	header http.Header
	body   []byte
}

// onResponse lets the reference answer, then changes the answer.
func onResponse(change func(*http.Request, *response)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			res := &response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			change(r, res)
			for k, v := range res.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(res.body)))
			w.WriteHeader(res.status)
			w.Write(res.body)
		})
	}
}

// onJSONResponse changes the JSON object of responses with one status.
func onJSONResponse(status int, change func(map[string]any)) func(http.Handler, string) http.Handler {
	return onResponse(func(_ *http.Request, res *response) {
		if res.status != status {
			return
		}
		var obj map[string]any
		d := json.NewDecoder(bytes.NewReader(res.body))
		d.UseNumber()
		if d.Decode(&obj) != nil {
			return
		}
		change(obj)
		res.body, _ = json.Marshal(obj)
	})
}

// onJSONRequest changes the JSON object of the request body before the
// reference sees it; bodies that are not objects pass unchanged.
func onJSONRequest(change func(map[string]any)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var buf bytes.Buffer
			buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
			body := buf.Bytes()
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if d.Decode(&obj) == nil && obj != nil {
				change(obj)
				body, _ = json.Marshal(obj)
			}
			ref.ServeHTTP(w, withBody(r, body))
		})
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// Lookup returns the mutant called name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range All {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
