package mutants

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// The mutants of media types.

var mediaMutants = []Mutant{
	mutant("ignore-media-type", "accepts a JSON body whatever media type it is declared as",
		"a body read as JSON whatever its Content-Type says",
		handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
			r.Header.Set("Content-Type", "application/json")
			ref.ServeHTTP(w, r)
		}), rules.MediaRequest),
	mutant("text-plain-answers", "sends its records as text/plain",
		"JSON written with a text helper (fmt.Fprint after http.Error-style headers) whose Content-Type is text/plain",
		onResponse(func(_ *http.Request, res *response) {
			res.header.Set("Content-Type", "text/plain; charset=utf-8")
		}), rules.ResponseMedia, rules.ResponseDocumented),
	mutant("no-content-type", "sends its records without a Content-Type",
		"a writer that never sets Content-Type, behind a proxy or framework that does not sniff one",
		onResponse(func(_ *http.Request, res *response) {
			res.header.Del("Content-Type")
			res.header["Content-Type"] = nil // keep net/http from sniffing one
		}), rules.ResponseMedia, rules.ResponseDocumented),
	readAsJSON("media-type-prefix", "accepts any Content-Type that begins with application/json (application/json-patch+json)",
		"Content-Type checked with strings.HasPrefix(ct, \"application/json\") or startsWith, to let parameters through",
		acceptContentType(func(ct string) bool {
			return strings.HasPrefix(ct, "application/json")
		})),
	readAsJSON("media-type-contains", "accepts any Content-Type that contains json (text/json, application/x-json)",
		"Content-Type checked with a substring test for \"json\" (strings.Contains, a /json/ regular expression)",
		acceptContentType(func(ct string) bool { return strings.Contains(ct, "json") })),

	mutant("accept-contains-json", "refuses a request whose Accept header does not hold the text application/json, as written (Application/JSON, application/* and a weighted */* are refused)",
		"hand-written content negotiation in Express: req.headers.accept.includes('application/json'), letting only a missing Accept and a bare */* through",
		refuseWhen(func(r *http.Request) bool {
			a := r.Header.Get("Accept")
			return a != "" && a != "*/*" && !strings.Contains(a, "application/json")
		}, "This service answers application/json only."), rules.MediaAccept),
	mediaParams("exact-content-type", "refuses every Content-Type but exactly application/json, so application/json; charset=utf-8 is refused",
		"Content-Type compared as a whole string (ct == \"application/json\") instead of by its media type",
		"The body must be application/json.", func(ct string) bool { return ct != "application/json" }),
	// What RFC 9110 calls application/json, refused: each lets through
	// the charset spellings the older scenarios send.
	mediaParams("media-type-split-exact", "refuses application/json in capitals or with white space before its \";\" (the media type compared as written)",
		"Express code that checks req.headers['content-type'].split(';')[0] === 'application/json': case-sensitive, and white space kept",
		"The body must be application/json.", func(ct string) bool {
			mt, _, _ := strings.Cut(ct, ";")
			return mt != "application/json"
		}),
	mediaParams("media-type-lowercase-param-only", "refuses application/json in capitals or with a quoted charset (only the parameter lower-cased)",
		"a hand-written check that lower-cases the parameter to let Spring's charset=UTF-8 through (mt.strip() == 'application/json' and param.strip().lower() in ('', 'charset=utf-8')) but compares the type as written and never unquotes",
		"The body must be application/json, in UTF-8.", func(ct string) bool {
			mt, param, _ := strings.Cut(ct, ";")
			p := strings.ToLower(strings.TrimSpace(param))
			return strings.TrimSpace(mt) != "application/json" || p != "" && p != "charset=utf-8"
		}),
	mediaParams("media-type-param-name-case", "refuses a media type parameter whose name is not written charset in lower case (CHARSET=UTF-8)",
		"a list of allowed parameters compared as written ({'charset'}), over a parser that keeps the names' case (a split on ';' and '=')",
		"Unknown media type parameter.", func(ct string) bool {
			_, params, _ := strings.Cut(ct, ";")
			for _, p := range strings.Split(params, ";") {
				if name, _, _ := strings.Cut(p, "="); strings.TrimSpace(p) != "" && strings.TrimSpace(name) != "charset" {
					return true
				}
			}
			return false
		}),
	readAsJSON("accept-form", "reads a URL-encoded or multipart form as a plant, as well as JSON",
		"a framework's form binding beside its JSON one (Spring's @ModelAttribute, Rails params, body-parser's urlencoded with json)",
		acceptForms("application/x-www-form-urlencoded", "multipart/form-data")),

	// Narrow siblings (issue 41) of ignore-media-type, media-type-contains
	// and accept-form: one more media type read as JSON, or one form, as
	// real stacks are set up to.
	readAsJSON("text-plain-as-json", "reads a body declared text/plain as JSON",
		"express.json({ type: ['application/json', 'text/plain'] }), set so that navigator.sendBeacon's and CORS-simple fetch's text/plain bodies are read",
		acceptContentType(func(ct string) bool { return mediaTypeOf(ct) == "text/plain" })),
	readAsJSON("media-type-json-suffix", "reads a body declared as any application/*+json type (application/json-patch+json) as JSON",
		"Spring's MappingJackson2HttpMessageConverter, which reads application/json and application/*+json by default",
		acceptContentType(func(ct string) bool {
			sub, ok := strings.CutPrefix(mediaTypeOf(ct), "application/")
			return ok && strings.HasSuffix(sub, "+json")
		})),
	readAsJSON("accept-urlencoded", "reads a URL-encoded form as a plant, as well as JSON",
		"app.use(express.urlencoded()) beside app.use(express.json()), as express-generator's app.js mounts them",
		acceptForms("application/x-www-form-urlencoded")),
}

// mediaTypeOf is the media type of a Content-Type value, lower-cased and
// without parameters ("" when it does not parse).
func mediaTypeOf(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// acceptForms turns a form body of one of the media types (URL-encoded or
// multipart) into the JSON plant its fields name, the id read as an
// integer, and hands it on as JSON.
func acceptForms(types ...string) wrapper {
	return handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(types, mediaTypeOf(r.Header.Get("Content-Type"))) {
			ref.ServeHTTP(w, r)
			return
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			respond(w, http.StatusBadRequest, "application/json", refusal("The form cannot be read."))
			return
		}
		obj := map[string]any{}
		for _, k := range []string{"id", "name", "tag"} {
			if !r.Form.Has(k) {
				continue
			}
			obj[k] = r.Form.Get(k)
			if n, err := strconv.ParseInt(r.Form.Get(k), 10, 64); k == "id" && err == nil {
				obj[k] = n
			}
		}
		b, _ := json.Marshal(obj)
		r.Header.Set("Content-Type", "application/json")
		ref.ServeHTTP(w, withBody(r, b))
	})
}

// readAsJSON is a mutant that reads as JSON a body it should refuse.
func readAsJSON(name, defect, origin string, wrap wrapper) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.MediaRequest}, Wrap: wrap}
}

// mediaParams is a mutant that refuses with message a request whose
// Content-Type (its first) refuse picks: application/json in a spelling RFC
// 9110 calls equal.
func mediaParams(name, defect, origin, message string, refuse func(ct string) bool) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: []rules.RuleID{rules.MediaRequestParams},
		Wrap: refuseWhen(func(r *http.Request) bool { return refuse(r.Header.Get("Content-Type")) }, message)}
}
