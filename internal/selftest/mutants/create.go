package mutants

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/plantcheck/plantcheck/spec/rules"
	"golang.org/x/text/unicode/norm"
)

// The mutants of creating a plant: the answer to a valid request, a valid
// request refused for how it is presented, the name and tag echoed.

var createMutants = []Mutant{
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
		Wrap:   handWrittenJSON(func(s string) string { return s }),
	},

	// The narrow siblings of the manglings above: each changes only the part
	// of a class that real servers do, which a string of the catalog of
	// hostile strings drawn with the seed can miss and its fixed strings
	// cannot.
	{
		Name: "compose-latin-accents", Defect: "composes é à ö ü ñ ç Å from a letter and a combining mark in name and tag, and nothing else",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "a hand-written table of the common accented letters (the str_replace or replace maps of PHP and JavaScript helpers that 'fix' macOS's decomposed text), or a store's partial normalisation",
		Wrap:   onPlantStrings(composeLatinAccents),
	},
	{
		Name: "rtrim-spaces", Defect: "removes the spaces at the end of name and tag",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "a CHAR column: MySQL removes the trailing spaces of a CHAR value when it is read back (unless PAD_CHAR_TO_FULL_LENGTH is set)",
		Wrap:   onPlantStrings(func(s string) string { return strings.TrimRight(s, " ") }),
	},
	{
		Name: "chomp-newline", Defect: "removes one line break (LF or CR LF) at the end of name and tag",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "chomp on input (Ruby's String#chomp, Perl's chomp), or a value read as a line (readline, a line scanner)",
		Wrap: onPlantStrings(func(s string) string {
			if t, ok := strings.CutSuffix(s, "\n"); ok {
				return strings.TrimSuffix(t, "\r")
			}
			return s
		}),
	},
	{
		Name: "escape-angle-brackets", Defect: "echoes name and tag with < and > alone HTML-escaped (&lt; &gt;)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "a hand-written XSS filter that escapes the angle brackets alone (replace(/</g, '&lt;').replace(/>/g, '&gt;'))",
		Wrap:   onPlantStrings(strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace),
	},
	{
		Name: "strip-tags", Defect: "removes everything between < and > from name and tag",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "PHP's strip_tags, or a sanitiser that strips markup (bleach's clean with strip=True), run on every input field",
		Wrap:   onPlantStrings(func(s string) string { return htmlTag.ReplaceAllString(s, "") }),
	},
	{
		Name: "nul-cuts-string", Defect: "cuts name and tag at their first NUL (U+0000)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "a value passed through a C string (a C extension or library that reads it up to its first NUL, as strlen does)",
		Wrap: onPlantStrings(func(s string) string {
			s, _, _ = strings.Cut(s, "\x00")
			return s
		}),
	},
	{
		Name: "emoji-to-question", Defect: "replaces the emoji (U+1F000 to U+1FAFF) in name and tag by '?', and no other character",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "an emoji filter (a regular expression over the emoji blocks) that replaces what it matches by '?', such as those written to keep emoji out of a MySQL utf8mb3 column",
		Wrap: onPlantStrings(func(s string) string {
			return strings.Map(func(r rune) rune {
				if r >= 0x1F000 && r <= 0x1FAFF {
					return '?'
				}
				return r
			}, s)
		}),
	},
	{
		Name: "crlf-only-to-lf", Defect: "turns CR LF in name and tag into LF, a lone CR kept",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: `the commonest hand-written line-ending normalisation, replace(/\r\n/g, "\n"), which leaves a lone CR as it is`,
		Wrap:   onPlantStrings(strings.NewReplacer("\r\n", "\n").Replace),
	},
	{
		Name: "json-numeric-check", Defect: `echoes a name or tag that reads as a number ("42", "007", "1e3") as a JSON number; true, false and null stay strings`,
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Origin: "PHP's json_encode with JSON_NUMERIC_CHECK, which writes every numeric string (is_numeric) as a number",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			b := append([]byte(`{"name":`), numericCheck(name)...)
			if tag != nil {
				b = append(append(b, `,"tag":`...), numericCheck(*tag)...)
			}
			return append(b, "}\n"...)
		}),
	},
	{
		Name: "escape-quote-only", Defect: "writes the Plant record by hand with the quote escaped and nothing else: a backslash or a control character goes raw",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Origin: `JSON built by concatenation with a hand-written escape of the quote alone (strings.ReplaceAll(s, "\"", "\\\""), s.replace('"', '\\"'))`,
		Wrap:   handWrittenJSON(strings.NewReplacer(`"`, `\"`).Replace),
	},
	{
		Name: "escape-quote-backslash", Defect: "writes the Plant record by hand with the quote and the backslash escaped and nothing else: a control character goes raw",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag, rules.ResponseDocumented},
		Origin: "a hand-written JSON escaper of the backslash and the quote alone (two replaces), which writes a line break or a tab raw",
		Wrap:   handWrittenJSON(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace),
	},
	{
		Name: "ascii-lower-tag", Defect: "echoes the tag with its ASCII letters in lower case, other letters as sent",
		Rules:  []rules.RuleID{rules.CreateTag},
		Origin: "tags lower-cased for lookup by a case mapping of ASCII alone (PHP 8.2's strtolower, C's tolower in the C locale)",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if tag != nil {
				lower := strings.Map(func(r rune) rune {
					if r >= 'A' && r <= 'Z' {
						return r + 'a' - 'A'
					}
					return r
				}, *tag)
				tag = &lower
			}
			return encodePlant(name, tag)
		}),
	},
	{
		Name: "capfirst-name", Defect: "echoes the name with its first letter in upper case",
		Rules:  []rules.RuleID{rules.CreateName},
		Origin: "names capitalised for display before they are stored (Django's capfirst, PHP's ucfirst)",
		Wrap: onPlantRecord(func(name string, tag *string) []byte {
			if r, n := utf8.DecodeRuneInString(name); n > 0 {
				name = string(unicode.ToUpper(r)) + name[n:]
			}
			return encodePlant(name, tag)
		}),
	},
	{
		Name: "strip-zero-width", Defect: "removes U+200B to U+200D and U+FEFF from name and tag (the soft hyphen and the word joiner kept)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: `the common regular expression for zero-width characters, [\u200B-\u200D\uFEFF], run on input`,
		Wrap:   onPlantStrings(func(s string) string { return zeroWidth.ReplaceAllString(s, "") }),
	},
	{
		Name: "strip-xml-invalid", Defect: "removes the control characters XML 1.0 forbids (U+0000 to U+001F but tab, LF and CR) from name and tag; DEL kept",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: `a sanitiser that keeps data exportable as XML 1.0 by removing [\x00-\x08\x0B\x0C\x0E-\x1F] from input`,
		Wrap:   onPlantStrings(func(s string) string { return xml10Invalid.ReplaceAllString(s, "") }),
	},
	{
		Name: "strip-line-separators", Defect: "removes U+2028 and U+2029 from name and tag (NEL kept)",
		Rules:  []rules.RuleID{rules.CreateName, rules.CreateTag},
		Origin: "the fix for JavaScript that evaluates JSON (JSONP, JSON inlined in a <script>) written as a removal of U+2028 and U+2029 instead of an escape",
		Wrap:   onPlantStrings(strings.NewReplacer("\u2028", "", "\u2029", "").Replace),
	},
}

// composeLatinAccents composes é à ö ü ñ ç Å, and only them, from a letter
// and a combining mark, as a hand-written table does.
var composeLatinAccents = strings.NewReplacer("e\u0301", "\u00e9", "a\u0300", "\u00e0", "o\u0308", "\u00f6",
	"u\u0308", "\u00fc", "n\u0303", "\u00f1", "c\u0327", "\u00e7", "A\u030a", "\u00c5").Replace

var (
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

// handWrittenJSON writes the Plant record with each string between quotes
// as escape leaves it.
func handWrittenJSON(escape func(string) string) func(http.Handler, string) http.Handler {
	return onPlantRecord(func(name string, tag *string) []byte {
		if tag != nil {
			return fmt.Appendf(nil, `{"name":"%s","tag":"%s"}`+"\n", escape(name), escape(*tag))
		}
		return fmt.Appendf(nil, `{"name":"%s"}`+"\n", escape(name))
	})
}
