package mutants

import (
	"encoding/json"
	"html"
	"io"
	"math"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/spec/rules"
	"golang.org/x/text/unicode/norm"
)

// The mutants of creating a plant: the answer to a valid request, a valid
// request refused for how it is presented, the name and tag echoed.

var createMutants = []Mutant{
	// Creating a plant: the answer to a valid request.
	mutant("status-201", "answers a valid create with 201 instead of 200",
		"REST conventions and scaffolds answer a create with 201 Created (Rails, Spring's ResponseEntity.created, Django REST framework's CreateModelMixin)",
		onStatus(http.StatusOK, func(res *response) { res.status = http.StatusCreated }), rules.Create200, rules.ResponseDocumented),
	mutant("reject-valid", "answers a valid create with 400 and an Error record",
		"a validation rule or switch that refuses every create (a stub left in, a feature flag left off)",
		onStatus(http.StatusOK, func(res *response) {
			res.status, res.body = http.StatusBadRequest, []byte(`{"error":99,"message":"No plants today."}`)
		}), rules.Create200),
	mutant("empty-200", "answers a valid create with 200 and an empty body",
		"a handler that sets the status and returns without writing the record (w.WriteHeader(200) alone)",
		onStatus(http.StatusOK, func(res *response) { res.body = nil }), rules.Create200, rules.ResponseDocumented),
	mutant("upper-case-name", "answers with the name sent in upper case",
		"a display or storage helper that normalises case before the answer is written",
		onJSONResponse(http.StatusOK, func(obj map[string]any) {
			if name, ok := obj["name"].(string); ok {
				obj["name"] = strings.ToUpper(name)
			}
		}), rules.CreateName),
	mutant("drop-name", "leaves the name out of the Plant record",
		`a response struct whose name field is unexported, misspelt or tagged json:"-", so the encoder leaves it out`,
		onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "name") }), rules.CreateName, rules.Create200, rules.ResponseDocumented),
	mutant("drop-tag", "leaves the tag out of the Plant record",
		"a response type written without the optional field (the DTO never got tag)",
		onJSONResponse(http.StatusOK, func(obj map[string]any) { delete(obj, "tag") }), rules.CreateTag),
	mutant("invent-tag", "answers a plant sent without a tag with a default tag",
		"a column DEFAULT or a model default answered as if the client had sent it",
		onJSONResponse(http.StatusOK, ifMissing("tag", func() any { return "untagged" })), rules.CreateNoTag),
	mutant("null-tag", "answers a plant sent without a tag with \"tag\": null",
		"a nullable field serialised without omitempty (Go's *string without omitempty, Jackson's default inclusion, Python's None)",
		onJSONResponse(http.StatusOK, ifMissing("tag", func() any { return nil })), rules.CreateNoTag, rules.ResponseDocumented),
	mutant("echo-id", "puts the id in the Plant record",
		"the stored entity serialised as it is instead of the documented response schema",
		onBodyAnswered(func(body []byte, res *response) {
			if obj, id := object(res.body), object(body)["id"]; res.status == http.StatusOK && obj != nil && id != nil {
				obj["id"] = id
				res.body, _ = json.Marshal(obj)
			}
		}), rules.CreateNoID),

	// Creating a plant: a valid request refused for how it is presented.
	mutant("needs-content-length", "refuses a valid create sent without Content-Length (a chunked body)",
		"a reader that reads exactly Content-Length bytes, so a chunked request is refused (older servers, some WSGI stacks)",
		refuseWhen(func(r *http.Request) bool { return r.ContentLength < 0 },
			"The request must carry a Content-Length."), rules.Create200),
	mutant("chunked-body-left", "reads a body by its Content-Length alone: a chunked body is refused with a text/plain 400 and left on the connection, whose chunks are answered later as a request of their own",
		"Python's http.server (BaseHTTPRequestHandler), whose handlers read rfile.read(Content-Length): the chunks that follow are read as the next request line and answered with an HTML 400",
		chunkedBodyLeft, rules.Create200),
	mutant("needs-accept-json", "answers a valid create with 406 and text when Accept is absent or not application/json",
		"a hand-written content negotiation (Accept must name application/json exactly; no header and */* are refused)",
		onResponse(func(r *http.Request, res *response) {
			for _, v := range r.Header.Values("Accept") {
				for _, mediaRange := range strings.Split(v, ",") {
					if mt, _, err := mime.ParseMediaType(mediaRange); err == nil && mt == "application/json" {
						return
					}
				}
			}
			if res.status == http.StatusOK {
				res.status, res.body = http.StatusNotAcceptable, []byte("Not Acceptable\n")
				res.header.Set("Content-Type", "text/plain; charset=utf-8")
			}
		}), rules.Create200, rules.ResponseDocumented),
	mutant("needs-user-agent", "refuses a request that carries no User-Agent header",
		"a gateway or firewall rule that turns away clients without a User-Agent (GitHub's API does; so do common WAF rule sets)",
		refuseWhen(func(r *http.Request) bool { return r.Header.Get("User-Agent") == "" },
			"Requests must name their client in User-Agent."), rules.Create200),
	mutant("fixed-layout-reader", "refuses a valid body that is not compact JSON with id first, name, then tag",
		"a body read with a regular expression or fixed offsets that expects one serialisation (key order, no white space)",
		onBodyAnswered(func(body []byte, res *response) {
			if res.status == http.StatusOK && !fixedLayout.Match(body) {
				res.status, res.body = http.StatusBadRequest, []byte(refusal("The request body could not be read."))
				res.header.Set("Content-Type", "application/json")
			}
		}), rules.Create200),

	// Creating a plant: the name and tag echoed.
	handWritten("number-like-name", "echoes a name or tag that reads as a number, true, false or null as that JSON value, not a string",
		"implicitly typed values (a YAML-backed store, JavaScript's Number coercion, PHP's numeric strings)",
		typedScalar),
	mangled("html-escape", "echoes name and tag HTML-escaped (&lt; &gt; &amp; &#39; &#34;)",
		"HTML escaping applied to a JSON API (html.EscapeString, a sanitiser on every input, a template's auto-escaping)",
		html.EscapeString),
	mangled("trim-name", "trims white space from both ends of the name and the tag",
		"input trimmed by default (Django REST framework's CharField trim_whitespace=True, a trim on every form field)",
		strings.TrimSpace),
	mutant("omitempty-tag", "leaves an empty tag out of the Plant record",
		"Go's encoding/json `omitempty` on a string field drops the empty tag",
		onPlantRecord(func(name string, tag *string) []byte {
			if tag != nil && *tag == "" {
				tag = nil
			}
			b, _ := json.Marshal(plantRecord{Name: name, Tag: tag})
			return append(b, '\n')
		}), rules.CreateTag),
	mutant("utf8-per-read", "decodes each 64 KiB read of the body as UTF-8 on its own: a character that falls across two reads becomes U+FFFD",
		"Node's http handler written as body += chunk: each Buffer of a 'data' event is turned into a string alone, so a character split between two reads is replaced",
		onRawRequest(func(body []byte) []byte {
			if !utf8.Valid(body) {
				return body // what is not UTF-8 is other mutants' matter
			}
			var text []byte
			for read := range slices.Chunk(body, 64<<10) {
				text = append(text, strings.ToValidUTF8(string(read), "\uFFFD")...)
			}
			return text
		}), rules.CreateName),
	mangled("strip-nul", "removes NUL characters (U+0000) from the name and the tag",
		"PostgreSQL text cannot hold NUL, so a driver or sanitiser strips it before storing",
		func(s string) string { return strings.ReplaceAll(s, "\x00", "") }),
	mangled("utf8mb3", "replaces every character beyond U+FFFF (emoji among them) in name and tag by '?'",
		"MySQL's utf8 (utf8mb3) charset holds at most three bytes a character and stores the others as '?'",
		runes(0x10000, unicode.MaxRune, func(rune) rune { return '?' })),
	mutant("varchar-255", "cuts the name to its first 255 characters",
		"MySQL without strict mode silently truncates a string too long for its VARCHAR(255) column",
		onEcho(func(name string) string {
			if r := []rune(name); len(r) > 255 {
				return string(r[:255])
			}
			return name
		}, nil), rules.CreateName),
	mangled("nfc-normalize", "normalises name and tag to Unicode NFC (e and U+0301 come back as é)",
		"text normalised on the way in (a Unicode-normalising form library, ORM or store)",
		norm.NFC.String),
	mutant("lower-case-tag", "echoes the tag in lower case",
		"tags normalised to lower case for lookup (slugify, a case-folded tag table)",
		onEcho(nil, strings.ToLower), rules.CreateTag),
	mangled("crlf-to-lf", "turns CR LF and lone CR in name and tag into LF",
		"line endings normalised on input, as XML 1.0 parsers and many text-field sanitisers do",
		strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace),
	handWritten("sprintf-json", "writes the Plant record with fmt.Sprintf, so quotes, backslashes and control characters go unescaped",
		"JSON built by string formatting or concatenation without escaping (fmt.Sprintf, a text template)",
		quoted(func(s string) string { return s })),

	// The narrow siblings of the manglings above: each changes only the part
	// of a class that real servers do, which a string of the catalog of
	// hostile strings drawn with the seed can miss and its fixed strings
	// cannot.
	mangled("compose-latin-accents", "composes é à ö ü ñ ç Å from a letter and a combining mark in name and tag, and nothing else",
		"a hand-written table of the common accented letters (the str_replace or replace maps of PHP and JavaScript helpers that 'fix' macOS's decomposed text), or a store's partial normalisation",
		composeLatinAccents),
	mangled("rtrim-spaces", "removes the spaces at the end of name and tag",
		"a CHAR column: MySQL removes the trailing spaces of a CHAR value when it is read back (unless PAD_CHAR_TO_FULL_LENGTH is set)",
		func(s string) string { return strings.TrimRight(s, " ") }),
	mangled("chomp-newline", "removes one line break (LF or CR LF) at the end of name and tag",
		"chomp on input (Ruby's String#chomp, Perl's chomp), or a value read as a line (readline, a line scanner)",
		func(s string) string {
			if t, ok := strings.CutSuffix(s, "\n"); ok {
				return strings.TrimSuffix(t, "\r")
			}
			return s
		}),
	mangled("escape-angle-brackets", "echoes name and tag with < and > alone HTML-escaped (&lt; &gt;)",
		"a hand-written XSS filter that escapes the angle brackets alone (replace(/</g, '&lt;').replace(/>/g, '&gt;'))",
		strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace),
	mangled("strip-tags", "removes everything between < and > from name and tag",
		"PHP's strip_tags, or a sanitiser that strips markup (bleach's clean with strip=True), run on every input field",
		func(s string) string { return htmlTag.ReplaceAllString(s, "") }),
	mangled("nul-cuts-string", "cuts name and tag at their first NUL (U+0000)",
		"a value passed through a C string (a C extension or library that reads it up to its first NUL, as strlen does)",
		func(s string) string {
			s, _, _ = strings.Cut(s, "\x00")
			return s
		}),
	mangled("emoji-to-question", "replaces the emoji (U+1F000 to U+1FAFF) in name and tag by '?', and no other character",
		"an emoji filter (a regular expression over the emoji blocks) that replaces what it matches by '?', such as those written to keep emoji out of a MySQL utf8mb3 column",
		runes(0x1F000, 0x1FAFF, func(rune) rune { return '?' })),
	mangled("crlf-only-to-lf", "turns CR LF in name and tag into LF, a lone CR kept",
		`the commonest hand-written line-ending normalisation, replace(/\r\n/g, "\n"), which leaves a lone CR as it is`,
		strings.NewReplacer("\r\n", "\n").Replace),
	handWritten("json-numeric-check", `echoes a name or tag that reads as a number ("42", "007", "1e3") as a JSON number; true, false and null stay strings`,
		"PHP's json_encode with JSON_NUMERIC_CHECK, which writes every numeric string (is_numeric) as a number",
		numericCheck),
	handWritten("escape-quote-only", "writes the Plant record by hand with the quote escaped and nothing else: a backslash or a control character goes raw",
		`JSON built by concatenation with a hand-written escape of the quote alone (strings.ReplaceAll(s, "\"", "\\\""), s.replace('"', '\\"'))`,
		quoted(strings.NewReplacer(`"`, `\"`).Replace)),
	handWritten("escape-quote-backslash", "writes the Plant record by hand with the quote and the backslash escaped and nothing else: a control character goes raw",
		"a hand-written JSON escaper of the backslash and the quote alone (two replaces), which writes a line break or a tab raw",
		quoted(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace)),
	mutant("ascii-lower-tag", "echoes the tag with its ASCII letters in lower case, other letters as sent",
		"tags lower-cased for lookup by a case mapping of ASCII alone (PHP 8.2's strtolower, C's tolower in the C locale)",
		onEcho(nil, runes('A', 'Z', func(r rune) rune { return r + 'a' - 'A' })), rules.CreateTag),
	mutant("capfirst-name", "echoes the name with its first letter in upper case",
		"names capitalised for display before they are stored (Django's capfirst, PHP's ucfirst)",
		onEcho(func(name string) string {
			if r, n := utf8.DecodeRuneInString(name); n > 0 {
				return string(unicode.ToUpper(r)) + name[n:]
			}
			return name
		}, nil), rules.CreateName),
	mangled("strip-zero-width", "removes U+200B to U+200D and U+FEFF from name and tag (the soft hyphen and the word joiner kept)",
		`the common regular expression for zero-width characters, [\u200B-\u200D\uFEFF], run on input`,
		func(s string) string { return zeroWidth.ReplaceAllString(s, "") }),
	mangled("strip-xml-invalid", "removes the control characters XML 1.0 forbids (U+0000 to U+001F but tab, LF and CR) from name and tag; DEL kept",
		`a sanitiser that keeps data exportable as XML 1.0 by removing [\x00-\x08\x0B\x0C\x0E-\x1F] from input`,
		func(s string) string { return xml10Invalid.ReplaceAllString(s, "") }),
	mangled("strip-line-separators", "removes U+2028 and U+2029 from name and tag (NEL kept)",
		"the fix for JavaScript that evaluates JSON (JSONP, JSON inlined in a <script>) written as a removal of U+2028 and U+2029 instead of an escape",
		strings.NewReplacer("\u2028", "", "\u2029", "").Replace),
}

// composeLatinAccents composes é à ö ü ñ ç Å, and only them, from a letter
// and a combining mark, as a hand-written table does.
var composeLatinAccents = strings.NewReplacer("e\u0301", "\u00e9", "a\u0300", "\u00e0", "o\u0308", "\u00f6",
	"u\u0308", "\u00fc", "n\u0303", "\u00f1", "c\u0327", "\u00e7", "A\u030a", "\u00c5").Replace

var (
	// fixedLayout is compact JSON with id first, then name, then the tag.
	fixedLayout  = regexp.MustCompile(`^\{"id":(-?\d+),"name":"((?:[^"\\]|\\.)*)"(?:,"tag":"((?:[^"\\]|\\.)*)")?\}$`)
	htmlTag      = regexp.MustCompile(`<[^>]*>`)
	zeroWidth    = regexp.MustCompile("[\u200b-\u200d\ufeff]")
	xml10Invalid = regexp.MustCompile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
	// phpNumeric is what PHP 8's is_numeric takes: white space on either
	// side, a sign, decimals, an exponent; no hexadecimal.
	phpNumeric = regexp.MustCompile(`^[ \t\n\r\v\f]*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t\n\r\v\f]*$`)
)

// numericCheck is s as json_encode writes it under JSON_NUMERIC_CHECK: a
// numeric string as a number, anything else as a string.
func numericCheck(s string) []byte {
	if phpNumeric.MatchString(s) {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			if b, err := json.Marshal(f); err == nil {
				return b
			}
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// mangled is a mutant that echoes name and tag each passed through change.
func mangled(name, defect, origin string, change func(string) string) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.CreateName, rules.CreateTag}, Wrap: onEcho(change, change)}
}

// handWritten is a mutant that writes the Plant record by hand, name and
// tag each written by scalar.
func handWritten(name, defect, origin string, scalar func(string) []byte) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			b := append([]byte(`{"name":`), scalar(name)...)
			if tag != nil {
				b = append(append(b, `,"tag":`...), scalar(*tag)...)
			}
			return append(b, "}\n"...)
		})}
}

// quoted writes a string between quotes as escape leaves it.
func quoted(escape func(string) string) func(string) []byte {
	return func(s string) []byte { return []byte(`"` + escape(s) + `"`) }
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

// chunkedBodyLeft answers a request without Content-Length as Python's
// http.server does: it reads no body, answers 400 text/plain and keeps
// the connection, so that the chunks on it are the next "request", which
// is answered with an HTML 400 and the connection closed. That answer is
// written when the client sends anything more on the connection: the
// worst turn of the race a client that reuses connections runs, whose next
// request there reads it as its own answer.
var chunkedBodyLeft = handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
	if r.ContentLength >= 0 {
		ref.ServeHTTP(w, r)
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	answer := func(status int, text, contentType, body string, close bool) error {
		res := &http.Response{StatusCode: status, Status: text, ProtoMajor: 1, ProtoMinor: 1, Close: close,
			Header: http.Header{"Content-Type": {contentType}}, ContentLength: int64(len(body)), Body: io.NopCloser(strings.NewReader(body))}
		if err := res.Write(rw); err != nil {
			return err
		}
		return rw.Flush()
	}
	if answer(http.StatusBadRequest, "", "text/plain", "bad json", false) != nil {
		return
	}
	if _, err := io.Copy(io.Discard, httputil.NewChunkedReader(rw.Reader)); err != nil {
		return
	}
	if _, err := textproto.NewReader(rw.Reader).ReadMIMEHeader(); err != nil {
		return // the trailer section, empty
	}
	if _, err := rw.Peek(1); err != nil {
		return // the client closed the connection: nothing reads the answer
	}
	answer(http.StatusBadRequest, "Bad request syntax", "text/html;charset=utf-8",
		"<!DOCTYPE HTML>\n<html lang=\"en\"><head><title>Error response</title></head>\n<body><h1>Error response</h1><p>Error code: 400</p><p>Message: Bad request syntax.</p></body></html>\n", true)
})
