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
	"errors"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/rules"
	"golang.org/x/text/unicode/norm"
)

// Mutant is one broken server.
type Mutant struct {
	// Name is a short stable identifier.
	Name string
	// Defect says what is wrong, in a sentence.
	Defect string
	// Rules are the rules a suite must name when it catches the defect (any
	// one of them will do).
	Rules []rules.RuleID
	// Origin names, in a line, where the defect is met in real servers.
	Origin string
	// Slow marks a mutant that answers late: run it with a short timeout.
	Slow bool
	// LongToken marks a mutant whose defect shows only with a token of 72
	// bytes or more: run it with a long token.
	LongToken bool
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
		Rules:  []rules.RuleID{rules.Create200, rules.ResponseDocumented},
		Origin: "REST conventions and scaffolds answer a create with 201 Created (Rails, Spring's ResponseEntity.created, Django REST framework's CreateModelMixin)",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.status = http.StatusCreated
			}
		}),
	},
	{
		Name: "reject-valid", Defect: "answers a valid create with 400 and an Error record",
		Rules:  []rules.RuleID{rules.Create200},
		Origin: "a validation rule or switch that refuses every create (a stub left in, a feature flag left off)",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.status, res.body = http.StatusBadRequest, []byte(`{"error":99,"message":"No plants today."}`)
			}
		}),
	},
	{
		Name: "empty-200", Defect: "answers a valid create with 200 and an empty body",
		Rules:  []rules.RuleID{rules.Create200, rules.ResponseDocumented},
		Origin: "a handler that sets the status and returns without writing the record (w.WriteHeader(200) alone)",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusOK {
				res.body = nil
			}
		}),
	},
	{
		Name: "upper-case-name", Defect: "answers with the name sent in upper case",
		Rules:  []rules.RuleID{rules.CreateName},
		Origin: "a display or storage helper that normalises case before the answer is written",
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if name, ok := obj["name"].(string); ok {
				obj["name"] = strings.ToUpper(name)
			}
		}),
	},
	{
		Name: "drop-name", Defect: "leaves the name out of the Plant record",
		Rules:  []rules.RuleID{rules.CreateName, rules.Create200, rules.ResponseDocumented},
		Origin: `a response struct whose name field is unexported, misspelt or tagged json:"-", so the encoder leaves it out`,
		Wrap:   onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "name") }),
	},
	{
		Name: "drop-tag", Defect: "leaves the tag out of the Plant record",
		Rules:  []rules.RuleID{rules.CreateTag},
		Origin: "a response type written without the optional field (the DTO never got tag)",
		Wrap:   onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "tag") }),
	},
	{
		Name: "invent-tag", Defect: "answers a plant sent without a tag with a default tag",
		Rules:  []rules.RuleID{rules.CreateNoTag},
		Origin: "a column DEFAULT or a model default answered as if the client had sent it",
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if _, ok := obj["tag"]; !ok {
				obj["tag"] = "untagged"
			}
		}),
	},
	{
		Name: "null-tag", Defect: "answers a plant sent without a tag with \"tag\": null",
		Rules:  []rules.RuleID{rules.CreateNoTag, rules.ResponseDocumented},
		Origin: "a nullable field serialised without omitempty (Go's *string without omitempty, Jackson's default inclusion, Python's None)",
		Wrap: onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if _, ok := obj["tag"]; !ok {
				obj["tag"] = nil
			}
		}),
	},
	{
		Name: "echo-id", Defect: "puts the id in the Plant record",
		Rules:  []rules.RuleID{rules.CreateNoID},
		Origin: "the stored entity serialised as it is instead of the documented response schema",
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

	// Creating a plant: a valid request refused for how it is presented.
	{
		Name: "needs-content-length", Defect: "refuses a valid create sent without Content-Length (a chunked body)",
		Rules:  []rules.RuleID{rules.Create200},
		Origin: "a reader that reads exactly Content-Length bytes, so a chunked request is refused (older servers, some WSGI stacks)",
		Wrap: refuseWhen(func(r *http.Request) bool { return r.ContentLength < 0 },
			"The request must carry a Content-Length."),
	},
	{
		Name: "needs-accept-json", Defect: "answers a valid create with 406 and text when Accept is absent or not application/json",
		Rules:  []rules.RuleID{rules.Create200, rules.ResponseDocumented},
		Origin: "a hand-written content negotiation (Accept must name application/json exactly; no header and */* are refused)",
		Wrap: onResponse(func(r *http.Request, res *response) {
			if res.status == http.StatusOK && !acceptsJSON(r.Header) {
				res.status, res.body = http.StatusNotAcceptable, []byte("Not Acceptable\n")
				res.header.Set("Content-Type", "text/plain; charset=utf-8")
			}
		}),
	},
	{
		Name: "needs-user-agent", Defect: "refuses a request that carries no User-Agent header",
		Rules:  []rules.RuleID{rules.Create200},
		Origin: "a gateway or firewall rule that turns away clients without a User-Agent (GitHub's API does; so do common WAF rule sets)",
		Wrap: refuseWhen(func(r *http.Request) bool { return r.Header.Get("User-Agent") == "" },
			"Requests must name their client in User-Agent."),
	},
	{
		Name: "fixed-layout-reader", Defect: "refuses a valid body that is not compact JSON with id first, name, then tag",
		Rules:  []rules.RuleID{rules.Create200},
		Origin: "a body read with a regular expression or fixed offsets that expects one serialisation (key order, no white space)",
		Wrap: onBodyAnswered(func(body []byte, res *response) {
			if res.status == http.StatusOK && !fixedLayout.Match(body) {
				refuse(res, "The request body could not be read.")
			}
		}),
	},

	// Creating a plant: the name and tag echoed.
	{
		Name: "number-like-name", Defect: "echoes a name or tag that reads as a number, true, false or null as that JSON value, not a string",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Origin: "implicitly typed values (a YAML-backed store, JavaScript's Number coercion, PHP's numeric strings)",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			b := append([]byte(`{"name":`), typedScalar(name)...)
			if tag != nil {
				b = append(append(b, `,"tag":`...), typedScalar(*tag)...)
			}
			return append(b, "}\n"...)
		}),
	},
	{
		Name: "html-escape", Defect: "echoes name and tag HTML-escaped (&lt; &gt; &amp; &#39; &#34;)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "HTML escaping applied to a JSON API (html.EscapeString, a sanitiser on every input, a template's auto-escaping)",
		Wrap:   onPlantStrings(html.EscapeString),
	},
	{
		Name: "trim-name", Defect: "trims white space from both ends of the name and the tag",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "input trimmed by default (Django REST framework's CharField trim_whitespace=True, a trim on every form field)",
		Wrap:   onPlantStrings(strings.TrimSpace),
	},
	{
		Name: "omitempty-tag", Defect: "leaves an empty tag out of the Plant record",
		Rules:  []rules.RuleID{rules.CreateTag},
		Origin: "Go's encoding/json `omitempty` on a string field drops the empty tag",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if tag != nil && *tag == "" {
				tag = nil
			}
			return encodePlant(name, tag)
		}),
	},
	{
		Name: "strip-nul", Defect: "removes NUL characters (U+0000) from the name and the tag",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "PostgreSQL text cannot hold NUL, so a driver or sanitiser strips it before storing",
		Wrap:   onPlantStrings(func(s string) string { return strings.ReplaceAll(s, "\x00", "") }),
	},
	{
		Name: "utf8mb3", Defect: "replaces every character beyond U+FFFF (emoji among them) in name and tag by '?'",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "MySQL's utf8 (utf8mb3) charset holds at most three bytes a character and stores the others as '?'",
		Wrap: onPlantStrings(func(s string) string {
			return strings.Map(func(r rune) rune {
				if r > 0xFFFF {
					return '?'
				}
				return r
			}, s)
		}),
	},
	{
		Name: "varchar-255", Defect: "cuts the name to its first 255 characters",
		Rules:  []rules.RuleID{rules.CreateName},
		Origin: "MySQL without strict mode silently truncates a string too long for its VARCHAR(255) column",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if r := []rune(name); len(r) > 255 {
				name = string(r[:255])
			}
			return encodePlant(name, tag)
		}),
	},
	{
		Name: "nfc-normalize", Defect: "normalises name and tag to Unicode NFC (e and U+0301 come back as é)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "text normalised on the way in (a Unicode-normalising form library, ORM or store)",
		Wrap:   onPlantStrings(norm.NFC.String),
	},
	{
		Name: "lower-case-tag", Defect: "echoes the tag in lower case",
		Rules:  []rules.RuleID{rules.CreateTag},
		Origin: "tags normalised to lower case for lookup (slugify, a case-folded tag table)",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if tag != nil {
				lower := strings.ToLower(*tag)
				tag = &lower
			}
			return encodePlant(name, tag)
		}),
	},
	{
		Name: "crlf-to-lf", Defect: "turns CR LF and lone CR in name and tag into LF",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "line endings normalised on input, as XML 1.0 parsers and many text-field sanitisers do",
		Wrap:   onPlantStrings(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace),
	},
	{
		Name: "sprintf-json", Defect: "writes the Plant record with fmt.Sprintf, so quotes, backslashes and control characters go unescaped",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Origin: "JSON built by string formatting or concatenation without escaping (fmt.Sprintf, a text template)",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if tag != nil {
				return fmt.Appendf(nil, `{"name":"%s","tag":"%s"}`+"\n", name, *tag)
			}
			return fmt.Appendf(nil, `{"name":"%s"}`+"\n", name)
		}),
	},

	// The request body.
	{
		Name: "accept-missing-id", Defect: "accepts a body without an id",
		Rules:  []rules.RuleID{rules.BodyIDRequired},
		Origin: "an id the server makes up when none is sent (an auto-increment key)",
		Wrap: onJSONRequest(func(obj map[string]any) {
			if _, ok := obj["id"]; !ok {
				obj["id"] = freshID()
			}
		}),
	},
	{
		Name: "accept-string-id", Defect: "accepts an id written as a JSON string",
		Rules:  []rules.RuleID{rules.BodyIDInteger},
		Origin: "lenient scalar coercion (Jackson's coercion of scalars, Pydantic's lax mode, Go's `,string` option)",
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
		Rules:  []rules.RuleID{rules.BodyIDInteger},
		Origin: "a decoded float cast to an integer (int(x) in Python, (long) in Java, parseInt in JavaScript)",
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
		Rules:  []rules.RuleID{rules.BodyIDInt64},
		Origin: "JSON numbers read as float64 (encoding/json into any, JavaScript's Number), which rounds near 2^63",
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
		Rules:  []rules.RuleID{rules.BodyNameRequired},
		Origin: "a default value for a missing field (a struct or column default)",
		Wrap: onJSONRequest(func(obj map[string]any) {
			if _, ok := obj["name"]; !ok {
				obj["name"] = "unnamed"
			}
		}),
	},
	{
		Name: "stringify-name", Defect: "accepts a name of any JSON type, turned into text",
		Rules:  []rules.RuleID{rules.BodyNameString},
		Origin: "any value coerced to text (fmt.Sprint, String(x), Pydantic's lax str)",
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
		Rules:  []rules.RuleID{rules.BodyNameString},
		Origin: `Go's encoding/json leaves a string field untouched on null, so null reads as ""`,
		Wrap: onJSONRequest(func(obj map[string]any) {
			if v, ok := obj["name"]; ok && v == nil {
				obj["name"] = ""
			}
		}),
	},
	{
		Name: "drop-bad-tag", Defect: "ignores a tag that is not a string instead of rejecting it",
		Rules:  []rules.RuleID{rules.BodyTagString},
		Origin: "a binder that skips fields it cannot convert instead of failing the request",
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
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "the error of json.Unmarshal unchecked: a body that does not parse leaves the defaults",
		Wrap: onRawRequest(func(body []byte) []byte {
			if !json.Valid(body) {
				return []byte(fmt.Sprintf(`{"id":%d,"name":"salvaged"}`, freshID()))
			}
			return body
		}),
	},
	{
		Name: "unwrap-array", Defect: "accepts a body that is not an object, taking its first plant or a default",
		Rules:  []rules.RuleID{rules.BodyObject},
		Origin: "a single-or-batch endpoint that takes the first element (Jackson's UNWRAP_SINGLE_VALUE_ARRAYS)",
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

	// The request body: text that is not JSON, read by lenient readers.
	{
		Name: "trailing-data", Defect: "reads the first JSON value of the body and ignores what follows it ({...}x, {...}{...})",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "a streaming decoder that reads one value and never checks for the end (Go's json.Decoder.Decode, Jackson without FAIL_ON_TRAILING_TOKENS)",
		Wrap:   onInvalidJSON(firstValue),
	},
	{
		Name: "lenient-json5", Defect: "accepts comments, trailing commas, single-quoted strings and unquoted keys",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "a JSON5 or YAML parser, or Jackson's ALLOW_COMMENTS, ALLOW_SINGLE_QUOTES and ALLOW_UNQUOTED_FIELD_NAMES, used for JSON",
		Wrap:   onInvalidJSON(json5),
	},
	{
		Name: "nan-infinity", Defect: "accepts NaN, Infinity and -Infinity as values (a member holding one is ignored)",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "Python's json.loads, which accepts NaN, Infinity and -Infinity by default",
		Wrap:   onInvalidJSON(pythonFloats),
	},
	{
		Name: "loose-numbers", Defect: "reads id with strconv.ParseInt(s, 0, 64): +5, 0x1F and 0123 (octal) are accepted",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "numbers read with strconv.ParseInt(s, 0, 64) or C's strtol(s, NULL, 0) instead of a JSON number grammar",
		Wrap:   onInvalidJSON(looseID),
	},
	{
		Name: "raw-control-chars", Defect: "accepts raw control characters (U+0000 to U+001F) inside strings",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "Python's json.loads(strict=False) and other lenient parsers take unescaped control characters in strings",
		Wrap:   onInvalidJSON(escapeControls),
	},
	{
		Name: "unclosed-object", Defect: "accepts a body cut off before the closing brace of its object",
		Rules:  []rules.RuleID{rules.BodyJSON},
		Origin: "a hand-rolled or repairing parser (in the manner of json_repair, dirty-json) that takes the end of input as the end of the object",
		Wrap:   onInvalidJSON(closeObject),
	},
	{
		Name: "case-insensitive-keys", Defect: `reads keys without regard to case: {"ID":1,"Name":"x"} is a plant`,
		Rules:  []rules.RuleID{rules.BodyIDRequired, rules.BodyNameRequired},
		Origin: "Go's encoding/json matches object keys to struct fields without regard to case",
		Wrap: onJSONRequest(func(obj map[string]any) {
			keys := slices.Sorted(maps.Keys(obj))
			for _, field := range []string{"id", "name", "tag"} {
				if _, ok := obj[field]; ok {
					continue
				}
				if i := slices.IndexFunc(keys, func(k string) bool { return strings.EqualFold(k, field) }); i >= 0 {
					obj[field] = obj[keys[i]]
					delete(obj, keys[i])
				}
			}
		}),
	},

	// Classes of values that the generated scenarios exercise beyond the
	// hand-written examples.
	{
		Name: "int32-id", Defect: "keeps ids in an int32: a valid id beyond it is refused",
		Rules:  []rules.RuleID{rules.GenValid, rules.Create200},
		Origin: "an id kept in 32 bits (an INT column, an int32 or Integer field) where the contract says int64",
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
		Rules:  []rules.RuleID{rules.BodyTagString, rules.GenInvalid},
		Origin: "booleans coerced to strings (Jackson's scalar coercion, PHP's loose typing)",
		Wrap: onJSONRequest(func(obj map[string]any) {
			if b, ok := obj["tag"].(bool); ok {
				obj["tag"] = strconv.FormatBool(b)
			}
		}),
	},
	{
		Name: "ascii-names-only", Defect: "refuses a name that is not plain ASCII",
		Rules:  []rules.RuleID{rules.GenValid, rules.GenBoundary, rules.BodyNameAny},
		Origin: "an ASCII or latin1 column, or a validation pattern such as [A-Za-z ]+, for names",
		Wrap: onRequestRefused(func(obj map[string]any) bool {
			name, ok := obj["name"].(string)
			return ok && strings.IndexFunc(name, func(r rune) bool { return r > 0x7e }) >= 0
		}),
	},
	{
		Name: "tag-required", Defect: "treats the optional tag as required",
		Rules:  []rules.RuleID{rules.GenValid, rules.CreateNoTag},
		Origin: "an optional field made required in the model (a NOT NULL column, a Pydantic field without a default)",
		Wrap: onRequestRefused(func(obj map[string]any) bool {
			_, ok := obj["tag"]
			return !ok
		}),
	},

	// Authentication.
	{
		Name: "ignore-token", Defect: "accepts any request, whatever its credentials",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.AuthUnknown},
		Origin: "authentication middleware left off the route, or a development switch that disables it",
		Wrap:   onAuthorization(func(_ string, token string) string { return "Bearer " + token }),
	},
	{
		Name: "anonymous-allowed", Defect: "accepts a request without an Authorization header",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "a middleware that checks the token only when the header is present",
		Wrap: onAuthorization(func(value, token string) string {
			if value == "" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "cookie-session", Defect: "sets a session cookie on an accepted request and then accepts the cookie alone, without an Authorization header",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "session middleware in front of the API (express-session, Django and Rails sessions): the first authorized request opens a session that later ones ride on",
		Wrap:   cookieSession,
	},
	{
		Name: "token-elsewhere", Defect: "takes the token from an access_token query parameter or body member when there is no Authorization header",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "RFC 6750's other ways to send a bearer token, looked for by default in middleware that tries the header, the query, then the body (express-bearer-token)",
		Wrap:   tokenElsewhere,
	},
	{
		Name: "token-header", Defect: "takes the token from an X-Auth-Token or X-API-Key header, or X-Authorization, when there is no Authorization header",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "a gateway or framework that reads its key from a header of its own as well as from Authorization (X-Auth-Token, X-API-Key)",
		Wrap: func(ref http.Handler, _ string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for _, name := range []string{"X-Auth-Token", "X-Api-Key"} {
					if v := r.Header.Get(name); v != "" && r.Header.Get("Authorization") == "" {
						r.Header.Set("Authorization", "Bearer "+v)
					}
				}
				if v := r.Header.Get("X-Authorization"); v != "" && r.Header.Get("Authorization") == "" {
					r.Header.Set("Authorization", v) // a gateway's copy of the header, taken as it
				}
				ref.ServeHTTP(w, r)
			})
		},
	},
	{
		Name: "token-cookie", Defect: "takes the token from an access_token cookie when there is no Authorization header",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "a token a web client keeps in a cookie, read by the API's middleware as well as the header (passport-jwt's or fastify-jwt's cookie extractor)",
		Wrap: func(ref http.Handler, _ string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c, err := r.Cookie("access_token"); err == nil && r.Header.Get("Authorization") == "" {
					r.Header.Set("Authorization", "Bearer "+c.Value)
				}
				ref.ServeHTTP(w, r)
			})
		},
	},
	{
		Name: "any-scheme", Defect: "accepts the token in any scheme, Basic included",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "the header split at its space and only the credential checked",
		Wrap: onAuthorization(func(value, token string) string {
			if _, cred, ok := strings.Cut(value, " "); ok && cred == token {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "empty-credential-allowed", Defect: "accepts Bearer with an empty credential",
		Rules:  []rules.RuleID{rules.AuthEmpty},
		Origin: `a missing credential read as "nothing to check" and let through`,
		Wrap: onAuthorization(func(value, token string) string {
			if strings.TrimSpace(value) == "Bearer" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "any-bearer-token", Defect: "accepts any non-empty bearer token, issued or not",
		Rules:  []rules.RuleID{rules.AuthUnknown},
		Origin: "a token checked for presence but never verified (a stubbed validator, a JWT whose signature is not checked)",
		Wrap: onAuthorization(func(value, token string) string {
			if scheme, cred, ok := strings.Cut(value, " "); ok && scheme == "Bearer" && cred != "" {
				return "Bearer " + token
			}
			return value
		}),
	},
	{
		Name: "auth-401", Defect: "answers bad credentials with 401, a status the document does not have",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.AuthUnknown, rules.ResponseDocumented},
		Origin: "the common convention of 401 Unauthorized for bad credentials, where this document has only 400",
		Wrap:   onErrorCode(1, func(res *response) { res.status = http.StatusUnauthorized }),
	},

	// Authentication: credentials near the issued token.
	{
		Name: "token-prefix", Defect: "accepts a bearer credential that begins with the issued token (the token with more after it)",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a comparison of only as many bytes as the token has (strncmp(cred, token, strlen(token)), strings.HasPrefix)",
		Wrap:   acceptBearer(strings.HasPrefix),
	},
	{
		Name: "token-truncated", Defect: "accepts a non-empty bearer credential that the issued token begins with (a cut token)",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a comparison of only as many bytes as the credential has (strncmp with the credential's length, token.startsWith(cred))",
		Wrap: acceptBearer(func(cred, token string) bool {
			return cred != "" && strings.HasPrefix(token, cred)
		}),
	},
	{
		Name: "token-fold-case", Defect: "compares the bearer token without regard to case",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a case-insensitive compare (strings.EqualFold, strcasecmp, equalsIgnoreCase) used for the token as for the scheme",
		Wrap:   acceptBearer(strings.EqualFold),
	},
	{
		Name: "token-bcrypt-72", Defect: "compares only the first 72 bytes of the bearer token",
		Rules: []rules.RuleID{rules.AuthNearMiss}, LongToken: true,
		Origin: "bcrypt reads only the first 72 bytes of its input, so tokens checked against a bcrypt hash match on that prefix",
		Wrap: acceptBearer(func(cred, token string) bool {
			return cred[:min(len(cred), 72)] == token[:min(len(token), 72)]
		}),
	},
	{
		Name: "token-contains", Defect: "accepts any Authorization value that contains the token",
		Rules:  []rules.RuleID{rules.AuthNearMiss, rules.AuthScheme},
		Origin: "a substring test on the whole header (strings.Contains, header.includes(token), a regular expression without anchors)",
		Wrap:   acceptAuthorization(strings.Contains),
	},
	{
		Name: "token-trim-prefix", Defect: "strips \"Bearer \" when present and compares the rest, so the bare token, without a scheme, is accepted",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "strings.TrimPrefix(h, \"Bearer \"), which returns the header unchanged when the prefix is missing",
		Wrap: acceptAuthorization(func(value, token string) bool {
			return strings.TrimPrefix(value, "Bearer ") == token
		}),
	},
	{
		Name: "token-slice-7", Defect: "takes the credential from the eighth byte on without checking the scheme (Digest <token> passes)",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "header[7:] (Java's substring(7), JavaScript's slice(7)) taken as the token on the assumption that it starts with \"Bearer \"",
		Wrap: acceptAuthorization(func(value, token string) bool {
			return len(value) >= 7 && value[7:] == token
		}),
	},

	// Media types.
	{
		Name: "ignore-media-type", Defect: "accepts a JSON body whatever media type it is declared as",
		Rules:  []rules.RuleID{rules.MediaRequest},
		Origin: "a body read as JSON whatever its Content-Type says",
		Wrap: func(ref http.Handler, _ string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Set("Content-Type", "application/json")
				ref.ServeHTTP(w, r)
			})
		},
	},
	{
		Name: "text-plain-answers", Defect: "sends its records as text/plain",
		Rules:  []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented},
		Origin: "JSON written with a text helper (fmt.Fprint after http.Error-style headers) whose Content-Type is text/plain",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			res.header.Set("Content-Type", "text/plain; charset=utf-8")
		}),
	},
	{
		Name: "no-content-type", Defect: "sends its records without a Content-Type",
		Rules:  []rules.RuleID{rules.ResponseMedia, rules.ResponseDocumented},
		Origin: "a writer that never sets Content-Type, behind a proxy or framework that does not sniff one",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			res.header.Del("Content-Type")
			res.header["Content-Type"] = nil // keep net/http from sniffing one
		}),
	},
	{
		Name: "media-type-prefix", Defect: "accepts any Content-Type that begins with application/json (application/json-patch+json)",
		Rules:  []rules.RuleID{rules.MediaRequest},
		Origin: "Content-Type checked with strings.HasPrefix(ct, \"application/json\") or startsWith, to let parameters through",
		Wrap: acceptContentType(func(ct string) bool {
			return strings.HasPrefix(ct, "application/json")
		}),
	},
	{
		Name: "media-type-contains", Defect: "accepts any Content-Type that contains json (text/json, application/x-json)",
		Rules:  []rules.RuleID{rules.MediaRequest},
		Origin: "Content-Type checked with a substring test for \"json\" (strings.Contains, a /json/ regular expression)",
		Wrap:   acceptContentType(func(ct string) bool { return strings.Contains(ct, "json") }),
	},

	{
		Name: "exact-content-type", Defect: "refuses every Content-Type but exactly application/json, so application/json; charset=utf-8 is refused",
		Rules:  []rules.RuleID{rules.MediaRequestParams},
		Origin: "Content-Type compared as a whole string (ct == \"application/json\") instead of by its media type",
		Wrap: refuseWhen(func(r *http.Request) bool { return r.Header.Get("Content-Type") != "application/json" },
			"The body must be application/json."),
	},
	{
		Name: "accept-form", Defect: "reads a URL-encoded or multipart form as a plant, as well as JSON",
		Rules:  []rules.RuleID{rules.MediaRequest},
		Origin: "a framework's form binding beside its JSON one (Spring's @ModelAttribute, Rails params, body-parser's urlencoded with json)",
		Wrap:   acceptForms,
	},

	// Error records and documented responses.
	{
		Name: "error-without-message", Defect: "leaves message out of the Error record",
		Rules:  []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented},
		Origin: "an error record built from its code alone (the message field missing from the error type)",
		Wrap:   onJSONResponse(http.StatusBadRequest, func(obj map[string]any) { delete(obj, "message") }),
	},
	{
		Name: "error-without-code", Defect: "leaves error out of the Error record",
		Rules:  []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented},
		Origin: "a framework's default error body, which carries only a message",
		Wrap:   onJSONResponse(http.StatusBadRequest, func(obj map[string]any) { delete(obj, "error") }),
	},
	{
		Name: "error-code-string", Defect: "writes the Error record's code as a string",
		Rules:  []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented},
		Origin: "error codes kept as strings (enum names, status texts) and serialised as such",
		Wrap: onJSONResponse(http.StatusBadRequest, func(obj map[string]any) {
			obj["error"] = fmt.Sprint(obj["error"])
		}),
	},
	{
		Name: "error-code-int64", Defect: "writes an Error code beyond int32 (2147483648)",
		Rules:  []rules.RuleID{rules.ErrorRecord, rules.ResponseDocumented},
		Origin: "an error code taken from a 64-bit value (a timestamp, a hash, a big enum)",
		Wrap: onJSONResponse(http.StatusBadRequest, func(obj map[string]any) {
			obj["error"] = json.Number("2147483648")
		}),
	},
	{
		Name: "error-as-text", Defect: "answers errors with a plain-text sentence instead of an Error record",
		Rules:  []rules.RuleID{rules.ErrorRecord, rules.ResponseMedia, rules.ResponseDocumented},
		Origin: "Go's http.Error, which answers text/plain, or a framework's default error page",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusBadRequest {
				res.header.Set("Content-Type", "text/plain; charset=utf-8")
				res.body = []byte("Bad Request\n")
			}
		}),
	},
	{
		Name: "status-422", Defect: "answers every error with 422 Unprocessable Entity instead of 400",
		Rules:  []rules.RuleID{rules.ResponseDocumented, rules.AuthMissing, rules.BodyObject},
		Origin: "frameworks whose validation errors default to 422: FastAPI's RequestValidationError, Rails' :unprocessable_entity, Laravel's ValidationException",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			if res.status == http.StatusBadRequest {
				res.status = http.StatusUnprocessableEntity
			}
		}),
	},
	{
		Name: "crash-500", Defect: "answers a body that is not an object with 500",
		Rules:  []rules.RuleID{rules.BodyObject, rules.ResponseDocumented},
		Origin: "an unchecked type assertion on the decoded body (v.(map[string]any)) that panics and is recovered as a 500",
		Wrap:   onErrorCode(6, func(res *response) { res.status = http.StatusInternalServerError }),
	},
	{
		Name: "missing-return", Defect: "writes a Plant record after the Error record for a body without a name (two JSON values)",
		Rules:  []rules.RuleID{rules.ResponseDocumented},
		Origin: "a Go handler missing its return after writing an error, so the success path writes too",
		Wrap: onResponse(func(_ *http.Request, res *response) {
			var e struct{ Message string }
			if res.status == http.StatusBadRequest && json.Unmarshal(res.body, &e) == nil &&
				strings.Contains(e.Message, `"name" is required`) {
				res.body = append(res.body, `{"name":""}`+"\n"...)
			}
		}),
	},

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
// reference sees it. Bodies that are not objects, or not valid JSON and
// UTF-8, pass unchanged, and so does a body that change leaves as it was:
// re-encoding it would repair what the reference refuses (data after the
// object, invalid UTF-8), a defect of its own.
func onJSONRequest(change func(map[string]any)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var buf bytes.Buffer
			buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
			body := buf.Bytes()
			var obj map[string]any
			d := json.NewDecoder(bytes.NewReader(body))
			d.UseNumber()
			if json.Valid(body) && utf8.Valid(body) && d.Decode(&obj) == nil && obj != nil {
				before, _ := json.Marshal(obj)
				change(obj)
				if after, _ := json.Marshal(obj); !bytes.Equal(after, before) {
					body = after
				}
			}
			ref.ServeHTTP(w, withBody(r, body))
		})
	}
}

// onBodyAnswered lets the reference answer, then changes the answer, with
// the request body at hand.
func onBodyAnswered(change func(body []byte, res *response)) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			onResponse(func(_ *http.Request, res *response) { change(body, res) })(ref, token).ServeHTTP(w, withBody(r, body))
		})
	}
}

// onInvalidJSON reads a body that is not JSON as a lenient reader would:
// when repair makes JSON of it, the reference gets the repaired body.
// Valid JSON passes unchanged.
func onInvalidJSON(repair func([]byte) []byte) func(http.Handler, string) http.Handler {
	return onRawRequest(func(body []byte) []byte {
		if json.Valid(body) {
			return body
		}
		if fixed := repair(body); json.Valid(fixed) {
			return fixed
		}
		return body
	})
}

// acceptAuthorization lets a request through as if it carried the issued
// token when its one Authorization header has a value that accept takes.
func acceptAuthorization(accept func(value, token string) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Authorization"); len(v) == 1 && accept(v[0], token) {
				r.Header.Set("Authorization", "Bearer "+token)
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// acceptBearer lets a request through as if it carried the issued token
// when its Authorization header is Bearer (in any case, as the reference
// takes it), a space and a credential that accept takes.
func acceptBearer(accept func(credential, token string) bool) func(http.Handler, string) http.Handler {
	return acceptAuthorization(func(value, token string) bool {
		scheme, credential, ok := strings.Cut(value, " ")
		return ok && strings.EqualFold(scheme, "Bearer") && accept(credential, token)
	})
}

// acceptContentType lets a request through as if it were declared
// application/json when its one Content-Type header is one accept takes.
func acceptContentType(accept func(string) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Content-Type"); len(v) == 1 && accept(v[0]) {
				r.Header.Set("Content-Type", "application/json")
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// acceptsJSON reports whether an Accept header names application/json.
func acceptsJSON(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for _, mediaRange := range strings.Split(v, ",") {
			if mt, _, err := mime.ParseMediaType(mediaRange); err == nil && mt == "application/json" {
				return true
			}
		}
	}
	return false
}

// fixedLayout is compact JSON with id first, then name, then the tag.
var fixedLayout = regexp.MustCompile(`^\{"id":(-?\d+),"name":"((?:[^"\\]|\\.)*)"(?:,"tag":"((?:[^"\\]|\\.)*)")?\}$`)

// refusal is the Error record with which a mutant refuses a valid request.
func refusal(message string) []byte {
	b, _ := json.Marshal(struct {
		Error   int32  `json:"error"`
		Message string `json:"message"`
	}{42, message})
	return append(b, '\n')
}

// refuse turns an answer into a refusal: 400 and an Error record.
func refuse(res *response, message string) {
	res.status, res.body = http.StatusBadRequest, refusal(message)
	res.header.Set("Content-Type", "application/json")
}

// refuseWhen answers the requests refuse picks with 400 and an Error
// record of message, before the reference sees them.
func refuseWhen(refuse func(*http.Request) bool, message string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if refuse(r) {
				writeRefusal(w, message)
				return
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// writeRefusal answers with a refusal: 400 and an Error record.
func writeRefusal(w http.ResponseWriter, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(refusal(message))
}

// plantRecord is the reference's Plant record (reference/server.go).
type plantRecord struct {
	Name string  `json:"name"`
	Tag  *string `json:"tag,omitempty"`
}

// encodePlant writes a Plant record as the reference does.
func encodePlant(name string, tag *string) []byte {
	b, _ := json.Marshal(plantRecord{Name: name, Tag: tag})
	return append(b, '\n')
}

// onPlantRecord rewrites the Plant record of the reference's 200 answers:
// write gets the name and the tag that were sent (tag nil when none was)
// and returns the body to answer with.
func onPlantRecord(write func(name string, tag *string) []byte) func(http.Handler, string) http.Handler {
	return onResponse(func(_ *http.Request, res *response) {
		var p plantRecord
		if res.status == http.StatusOK && json.Unmarshal(res.body, &p) == nil {
			res.body = write(p.Name, p.Tag)
		}
	})
}

// onPlantStrings passes the name and the tag, where one was sent, of the
// Plant record through change.
func onPlantStrings(change func(string) string) func(http.Handler, string) http.Handler {
	return onPlantRecord(func(name string, tag *string) []byte {
		if tag != nil {
			changed := change(*tag)
			tag = &changed
		}
		return encodePlant(change(name), tag)
	})
}

// typedScalar is s as an implicitly typed reader takes it: true, false and
// null are literals, text that strconv.ParseFloat reads as a finite number
// is that number, and anything else a string.
func typedScalar(s string) []byte {
	if s == "true" || s == "false" || s == "null" {
		return []byte(s)
	}
	var b []byte
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		b, _ = json.Marshal(f)
	} else {
		b, _ = json.Marshal(s)
	}
	return b
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

// cookieSession opens a session, named by a Set-Cookie, on every accepted
// request, and takes a request that presents a session's cookie without an
// Authorization header as authorized.
func cookieSession(ref http.Handler, token string) http.Handler {
	var mu sync.Mutex
	sessions := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			if c, err := r.Cookie("session"); err == nil {
				mu.Lock()
				ok := sessions[c.Value]
				mu.Unlock()
				if ok {
					r.Header.Set("Authorization", "Bearer "+token)
				}
			}
		}
		onResponse(func(r *http.Request, res *response) {
			if res.status != http.StatusOK {
				return
			}
			id := strconv.FormatInt(freshID(), 36)
			mu.Lock()
			sessions[id] = true
			mu.Unlock()
			res.header.Add("Set-Cookie", (&http.Cookie{Name: "session", Value: id, Path: "/", HttpOnly: true}).String())
		})(ref, token).ServeHTTP(w, r)
	})
}

// acceptForms turns a form body (URL-encoded or multipart) into the JSON
// plant its fields name, the id read as an integer, and hands it on as
// JSON.
func acceptForms(ref http.Handler, _ string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "application/x-www-form-urlencoded" && mt != "multipart/form-data" {
			ref.ServeHTTP(w, r)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			writeRefusal(w, "The form cannot be read.")
			return
		}
		obj := map[string]any{}
		for _, k := range []string{"id", "name", "tag"} {
			if !r.Form.Has(k) {
				continue
			}
			v := r.Form.Get(k)
			if k != "id" {
				obj[k] = v
			} else if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				obj[k] = n
			} else {
				obj[k] = v
			}
		}
		b, _ := json.Marshal(obj)
		r.Header.Set("Content-Type", "application/json")
		ref.ServeHTTP(w, withBody(r, b))
	})
}

// tokenElsewhere takes a request without an Authorization header as if it
// had one with the token found in its access_token query parameter or, if
// none, its body's access_token member.
func tokenElsewhere(ref http.Handler, _ string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			ref.ServeHTTP(w, r)
			return
		}
		tok := r.URL.Query().Get("access_token")
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var obj struct {
			AccessToken string `json:"access_token"`
		}
		if tok == "" && json.Unmarshal(body, &obj) == nil {
			tok = obj.AccessToken
		}
		if tok != "" {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		ref.ServeHTTP(w, withBody(r, body))
	})
}
