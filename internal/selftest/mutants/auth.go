package mutants

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// The mutants of authentication: the header, its scheme, and credentials
// near the issued token or in other places than the header.

var authMutants = []Mutant{
	mutant("ignore-token", "accepts any request, whatever its credentials",
		"authentication middleware left off the route, or a development switch that disables it",
		onAuthorization(func(string, string) bool { return true }), rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.AuthUnknown),
	mutant("anonymous-allowed", "accepts a request without an Authorization header",
		"a middleware that checks the token only when the header is present",
		onAuthorization(func(value, _ string) bool { return value == "" }), rules.AuthMissing),
	mutant("cookie-session", "sets a session cookie on an accepted request and then accepts the cookie alone, without an Authorization header",
		"session middleware in front of the API (express-session, Django and Rails sessions): the first authorized request opens a session that later ones ride on",
		cookieSession, rules.AuthMissing),
	mutant("token-elsewhere", "takes the token from an access_token query parameter or body member when there is no Authorization header",
		"RFC 6750's other ways to send a bearer token, looked for by default in middleware that tries the header, the query, then the body (express-bearer-token)",
		tokenElsewhere, rules.AuthMissing),
	mutant("token-header", "takes the token from an X-Auth-Token or X-API-Key header, or X-Authorization, when there is no Authorization header",
		"a gateway or framework that reads its key from a header of its own as well as from Authorization (X-Auth-Token, X-API-Key)",
		handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
			for _, name := range []string{"X-Auth-Token", "X-Api-Key"} {
				if v := r.Header.Get(name); v != "" && r.Header.Get("Authorization") == "" {
					r.Header.Set("Authorization", "Bearer "+v)
				}
			}
			if v := r.Header.Get("X-Authorization"); v != "" && r.Header.Get("Authorization") == "" {
				r.Header.Set("Authorization", v) // a gateway's copy of the header, taken as it
			}
			ref.ServeHTTP(w, r)
		}), rules.AuthMissing),
	mutant("token-cookie", "takes the token from an access_token cookie when there is no Authorization header",
		"a token a web client keeps in a cookie, read by the API's middleware as well as the header (passport-jwt's or fastify-jwt's cookie extractor)",
		handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
			if c, err := r.Cookie("access_token"); err == nil && r.Header.Get("Authorization") == "" {
				r.Header.Set("Authorization", "Bearer "+c.Value)
			}
			ref.ServeHTTP(w, r)
		}), rules.AuthMissing),
	mutant("any-scheme", "accepts the token in any scheme, Basic included",
		"the header split at its space and only the credential checked",
		onAuthorization(func(value, token string) bool {
			_, cred, ok := strings.Cut(value, " ")
			return ok && cred == token
		}), rules.AuthScheme),
	mutant("empty-credential-allowed", "accepts Bearer with an empty credential",
		`a missing credential read as "nothing to check" and let through`,
		onAuthorization(func(value, _ string) bool { return strings.TrimSpace(value) == "Bearer" }), rules.AuthEmpty),
	mutant("any-bearer-token", "accepts any non-empty bearer token, issued or not",
		"a token checked for presence but never verified (a stubbed validator, a JWT whose signature is not checked)",
		onAuthorization(func(value, _ string) bool {
			scheme, cred, ok := strings.Cut(value, " ")
			return ok && scheme == "Bearer" && cred != ""
		}), rules.AuthUnknown),
	mutant("auth-401", "answers bad credentials with 401, a status the document does not have",
		"the common convention of 401 Unauthorized for bad credentials, where this document has only 400",
		onErrorCode(1, func(res *response) { res.status = http.StatusUnauthorized }), rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.AuthUnknown, rules.ResponseDocumented),

	// Authentication: state keyed by the request, consulted before the
	// credential (issue 33).
	mutant("replay-cache-before-auth", "keeps each 200 answer under a hash of the request body and answers a body it has seen with the kept answer before it checks the credential",
		"a response cache in front of the auth check keyed by the request without its Authorization header (nginx proxy_cache with POST among proxy_cache_methods and $request_body in proxy_cache_key, a memoised handler)",
		keptBeforeAuth(func(_ *http.Request, body []byte) string {
			sum := sha256.Sum256(body)
			return string(sum[:])
		}), rules.AuthMissing, rules.AuthUnknown),
	mutant("idempotency-before-auth", "keeps each 200 answer under the request's Idempotency-Key and answers a request with a known key with the kept answer before it checks the credential",
		"idempotency middleware (modelled on Stripe's Idempotency-Key) mounted before the authentication middleware, its store keyed by the key alone",
		keptBeforeAuth(func(r *http.Request, _ []byte) string {
			return r.Header.Get("Idempotency-Key")
		}), rules.AuthMissing),
	mutant("dedup-id-before-auth", "takes a create whose id it has stored as a success, before it checks the credential",
		"an idempotent create (INSERT ... ON CONFLICT (id) DO NOTHING, then the plant sent is answered) whose de-duplication runs before the auth check",
		knownBeforeAuth("id"), rules.AuthMissing, rules.AuthUnknown),
	mutant("dedup-name-before-auth", "takes a create whose name it has stored as a success, before it checks the credential",
		"a de-duplication table keyed by the plant's name (a unique name column with ON CONFLICT DO NOTHING, a seen-names set) consulted before the auth check",
		knownBeforeAuth("name"), rules.AuthMissing, rules.AuthUnknown),

	// Authentication: credentials near the issued token.
	mutant("token-prefix", "accepts a bearer credential that begins with the issued token (the token with more after it)",
		"a comparison of only as many bytes as the token has (strncmp(cred, token, strlen(token)), strings.HasPrefix)",
		acceptAuthorization(inScheme("Bearer", strings.HasPrefix)), rules.AuthNearMiss),
	mutant("token-truncated", "accepts a non-empty bearer credential that the issued token begins with (a cut token)",
		"a comparison of only as many bytes as the credential has (strncmp with the credential's length, token.startsWith(cred))",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			return cred != "" && strings.HasPrefix(token, cred)
		})), rules.AuthNearMiss),
	mutant("token-fold-case", "compares the bearer token without regard to case",
		"a case-insensitive compare (strings.EqualFold, strcasecmp, equalsIgnoreCase) used for the token as for the scheme",
		acceptAuthorization(inScheme("Bearer", strings.EqualFold)), rules.AuthNearMiss),
	{
		Name: "token-bcrypt-72", Defect: "compares only the first 72 bytes of the bearer token",
		Rules: []rules.RuleID{rules.AuthNearMiss}, LongToken: true,
		Origin: "bcrypt reads only the first 72 bytes of its input, so tokens checked against a bcrypt hash match on that prefix",
		Wrap:   acceptAuthorization(inScheme("Bearer", firstBytes(72))),
	},
	{
		Name: "token-first-32", Defect: "compares only the first 32 bytes of the bearer token",
		Rules: []rules.RuleID{rules.AuthNearMiss}, LongToken: true,
		Origin: "a fixed-size buffer or column (char(32), a 32-byte key) that the token is cut to before it is compared",
		Wrap:   acceptAuthorization(inScheme("Bearer", firstBytes(32))),
	},
	mutant("token-base64-padding", "compares the bearer token with its base64 padding read away, so the token with = added or removed is accepted",
		"a token decoded leniently as base64 before it is compared (Go's base64 with padding trimmed, Python's b64decode with padding appended, JWT libraries' base64url)",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			return strings.TrimRight(cred, "=") == strings.TrimRight(token, "=")
		})), rules.AuthNearMiss),
	mutant("token-base64-alphabet", "reads the bearer token in either base64 alphabet (+/ or -_), so the token spelt in the other is accepted",
		"a decoder that accepts both RFC 4648 alphabets (Node's Buffer.from(s, 'base64'), many JWT libraries), the decoded bytes then compared",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			std := strings.NewReplacer("-", "+", "_", "/")
			return std.Replace(cred) == std.Replace(token)
		})), rules.AuthNearMiss),
	mutant("token-percent-decoded", "percent-decodes the bearer token before it compares it, so %41 is taken for A",
		"a credential passed through URL decoding on its way (a framework that decodes header values as it does query parameters, a token round-tripped through a URL)",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			u, err := url.PathUnescape(cred)
			return err == nil && u == token
		})), rules.AuthNearMiss),
	mutant("token-width-folded", "folds full-width characters to ASCII in the bearer token before it compares it, so Ａ is taken for A",
		"a credential passed through Unicode compatibility normalisation (NFKC, as identifier and user-name handling applies it) or width folding before the comparison",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			return runes(0xFF01, 0xFF5E, func(r rune) rune { return r - 0xFEE0 })(cred) == token
		})), rules.AuthNearMiss),
	mutant("token-strip-space", "removes white space inside the bearer token before it compares it",
		"a credential 'cleaned' of white space (strings.Fields joined, a regular expression replacing \\s+), as copied keys often are",
		acceptAuthorization(inScheme("Bearer", func(cred, token string) bool {
			return strings.Join(strings.Fields(cred), "") == token
		})), rules.AuthNearMiss),
	// Authentication: a credential read up to a delimiter, or from the
	// field's end (issue 33). Each checks the scheme as real code does and
	// reads the credential as the parser named in its origin.
	mutant("token-split-space", "reads the credential as the second of the field's words split at each space, so the token with a space and more after it is accepted",
		"const [scheme, token] = header.split(' ') in Node (and Python's header.split()[1]), which drops every word after the second",
		acceptAuthorization(func(value, token string) bool {
			words := strings.Split(value, " ")
			return len(words) >= 2 && words[0] == "Bearer" && words[1] == token
		}), rules.AuthNearMiss),
	mutant("token-split-comma", "reads the Authorization field as a comma-separated list and checks its first element, so the token with a comma and more after it is accepted",
		"a header read as a list, header.split(',')[0].trim(), as is right for Accept or X-Forwarded-For and wrong for Authorization (two fields joined by a proxy)",
		acceptAuthorization(func(value, token string) bool {
			first, _, _ := strings.Cut(value, ",")
			return strings.TrimSpace(first) == "Bearer "+token
		}), rules.AuthNearMiss),
	mutant("token-regex-unanchored", "matches the credential with a regular expression of b64token's characters not anchored at its end, so the token with any other character and more after it is accepted",
		`a pattern such as ^Bearer ([A-Za-z0-9._~+/-]+=*) or Bearer (\S+) without $ (re.match in Python, String.match in JavaScript), whose group is compared`,
		acceptAuthorization(func(value, token string) bool {
			m := b64tokenPrefix.FindStringSubmatch(value)
			return m != nil && m[1] == token
		}), rules.AuthNearMiss),
	mutant("token-last-word", "reads the credential as the last word of the field, so a word and a space before the token are accepted (and Bearer, a tab and the token)",
		"Python's header.split()[-1] or JavaScript's header.split(' ').pop(), after a check that the field begins with Bearer",
		acceptAuthorization(func(value, token string) bool {
			words := strings.Fields(value)
			return len(words) >= 2 && words[0] == "Bearer" && words[len(words)-1] == token
		}), rules.AuthNearMiss, rules.AuthScheme),
	mutant("token-replace-scheme", "takes every \"Bearer \" out of the field and compares the rest, so Bearer Bearer <token> is accepted",
		`header.startswith("Bearer ") then header.replace("Bearer ", "") in Python, whose replace takes out every occurrence, not the first`,
		acceptAuthorization(func(value, token string) bool {
			return strings.HasPrefix(value, "Bearer ") && strings.ReplaceAll(value, "Bearer ", "") == token
		}), rules.AuthNearMiss),
	mutant("token-contains", "accepts any Authorization value that contains the token",
		"a substring test on the whole header (strings.Contains, header.includes(token), a regular expression without anchors)",
		acceptAuthorization(strings.Contains), rules.AuthNearMiss, rules.AuthScheme),
	mutant("token-trim-prefix", "strips \"Bearer \" when present and compares the rest, so the bare token, without a scheme, is accepted",
		"strings.TrimPrefix(h, \"Bearer \"), which returns the header unchanged when the prefix is missing",
		acceptAuthorization(func(value, token string) bool {
			return strings.TrimPrefix(value, "Bearer ") == token
		}), rules.AuthScheme),
	mutant("token-slice-7", "takes the credential from the eighth byte on without checking the scheme (Digest <token> passes)",
		"header[7:] (Java's substring(7), JavaScript's slice(7)) taken as the token on the assumption that it starts with \"Bearer \"",
		acceptAuthorization(func(value, token string) bool {
			return len(value) >= 7 && value[7:] == token
		}), rules.AuthScheme),

	// Narrow siblings (issue 41) of any-scheme, token-slice-7,
	// token-split-space and auth-401: the same defect on the footprint
	// real code gives it, each caught by a fixed scenario.
	mutant("token-scheme-alias", "accepts the issued token under the scheme Token as well as Bearer",
		"an API that takes its token under the scheme Token beside Bearer, as GitHub's API does and Django REST framework's TokenAuthentication asks (keyword Token)",
		acceptAuthorization(inScheme("Token", func(cred, token string) bool { return cred == token })), rules.AuthScheme),
	mutant("jwt-scheme", "accepts the issued token under the scheme JWT as well as Bearer",
		"passport-jwt's ExtractJwt.fromAuthHeaderWithScheme('JWT'), or djangorestframework-jwt's header prefix JWT (simplejwt's AUTH_HEADER_TYPES = ('Bearer', 'JWT')), beside Bearer",
		acceptAuthorization(inScheme("JWT", func(cred, token string) bool { return cred == token })), rules.AuthScheme),
	mutant("bearer-prefix-slice-7", "checks that the field begins with Bearer, without its space, and takes the credential from its eighth byte on, so Bearer, a tab and the token pass",
		`if (!header.startsWith("Bearer")) ... token = header.substring(7) in a Java or Node filter: the prefix checked without the space it then skips`,
		acceptAuthorization(func(value, token string) bool {
			return strings.HasPrefix(value, "Bearer") && len(value) > 7 && value[7:] == token
		}), rules.AuthScheme),
	mutant("token-split-whitespace", "reads the field as two words split at any white space, so Bearer, a tab and the token pass",
		"Python's scheme, token = header.split() (Go's strings.Fields), which splits at tabs as at spaces",
		acceptAuthorization(func(value, token string) bool {
			words := strings.Fields(value)
			return len(words) == 2 && words[0] == "Bearer" && words[1] == token
		}), rules.AuthScheme),
	mutant("httpbearer-403", "answers a request without an Authorization header, with another scheme or with an empty credential with 403 and {\"detail\": ...}; a wrong token still gets 400 and an Error record",
		"FastAPI's HTTPBearer security dependency, which answers 403 \"Not authenticated\" or \"Invalid authentication credentials\" before the service's own token check runs",
		httpBearer403, rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.ResponseDocumented),
	// The scheme's letter case (AUTH-SCHEME-CASE, a SHOULD): the mutant
	// keeps the letter of the spec, so the self-test catches it at SHOULD
	// level, exit 0 without --strict.
	mutant("bearer-case-sensitive", "refuses the issued token under the scheme written bearer or BEARER, with 400 and an Error record",
		"a credential check written header.startsWith('Bearer ') (Express middleware), or auth[:7] == \"Bearer \"",
		refuseWhen(func(r *http.Request) bool {
			scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			return scheme != "Bearer"
		}, "The request must carry Authorization: Bearer <token>."), rules.AuthSchemeCase),
}

// inScheme takes a field whose scheme is scheme (in any letter case, as
// the reference takes Bearer), a space and a credential that accept takes.
func inScheme(scheme string, accept func(cred, token string) bool) func(value, token string) bool {
	return func(value, token string) bool {
		s, cred, ok := strings.Cut(value, " ")
		return ok && strings.EqualFold(s, scheme) && accept(cred, token)
	}
}

// firstBytes compares only the first n bytes of the credential and the token.
func firstBytes(n int) func(cred, token string) bool {
	return func(cred, token string) bool { return cred[:min(len(cred), n)] == token[:min(len(token), n)] }
}

// httpBearer403 answers as FastAPI's HTTPBearer does before the handler
// runs: the field partitioned at its first space, no field or no
// credential is "Not authenticated", a scheme other than bearer "Invalid
// authentication credentials", each 403 with FastAPI's {"detail": ...}.
var httpBearer403 = handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	detail := ""
	switch {
	case scheme == "" || cred == "":
		detail = "Not authenticated"
	case !strings.EqualFold(scheme, "bearer"):
		detail = "Invalid authentication credentials"
	}
	if detail == "" {
		ref.ServeHTTP(w, r)
		return
	}
	b, _ := json.Marshal(map[string]string{"detail": detail})
	respond(w, http.StatusForbidden, "application/json", string(b))
})

// cookieSession opens a session, named by a Set-Cookie, on every accepted
// request, and takes a request that presents a session's cookie without an
// Authorization header as authorized.
func cookieSession(ref http.Handler, token string) http.Handler {
	var sessions sync.Map
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil && r.Header.Get("Authorization") == "" {
			if _, ok := sessions.Load(c.Value); ok {
				r.Header.Set("Authorization", "Bearer "+token)
			}
		}
		onStatus(http.StatusOK, func(res *response) {
			id := strconv.FormatInt(freshID(), 36)
			sessions.Store(id, true)
			res.header.Add("Set-Cookie", (&http.Cookie{Name: "session", Value: id, Path: "/", HttpOnly: true}).String())
		})(ref, token).ServeHTTP(w, r)
	})
}

// tokenElsewhere takes a request without an Authorization header as if it
// had one with the token found in its access_token query parameter or, if
// none, its body's access_token member.
var tokenElsewhere = handle(func(ref http.Handler, _ string, w http.ResponseWriter, r *http.Request) {
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

// b64tokenPrefix is RFC 6750's credential without an anchor at its end: it
// matches the longest run of b64token's characters after "Bearer ", and
// whatever follows it.
var b64tokenPrefix = regexp.MustCompile(`^Bearer ([A-Za-z0-9._~+/-]+=*)`)

// beforeAuth keeps each 200 answer under the key of its request, and serves
// a request whose key it keeps with known, whatever its credentials; the
// reference answers every other request. The key "" is never kept.
func beforeAuth(key func(r *http.Request, body []byte) string,
	known func(ref http.Handler, token string, kept *response, w http.ResponseWriter, r *http.Request, body []byte)) wrapper {
	return func(ref http.Handler, token string) http.Handler {
		var kept sync.Map
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			k := key(r, body)
			if res, ok := kept.Load(k); k != "" && ok {
				known(ref, token, res.(*response), w, r, body)
				return
			}
			onStatus(http.StatusOK, func(res *response) {
				if k != "" {
					kept.Store(k, &response{res.status, res.header.Clone(), bytes.Clone(res.body)})
				}
			})(ref, token).ServeHTTP(w, withBody(r, body))
		})
	}
}

// keptBeforeAuth answers a request whose key it keeps with the answer kept.
func keptBeforeAuth(key func(r *http.Request, body []byte) string) wrapper {
	return beforeAuth(key, func(_ http.Handler, _ string, res *response, w http.ResponseWriter, _ *http.Request, _ []byte) {
		maps.Copy(w.Header(), res.header)
		w.WriteHeader(res.status)
		w.Write(res.body)
	})
}

// knownBeforeAuth keeps the value of member (id or name) of every create
// answered 200, and takes a later create with a known value as a success
// whatever its credentials: the reference stores it under a fresh id as if
// the issued token came with it, so its answer echoes the plant sent. Only
// a create that is valid but for its credentials is taken so (a JSON
// NewPlant, declared application/json), so that the defect is the one.
func knownBeforeAuth(member string) wrapper {
	return beforeAuth(func(r *http.Request, body []byte) string {
		_, k := createKey(r, body, member)
		return k
	}, func(ref http.Handler, token string, _ *response, w http.ResponseWriter, r *http.Request, body []byte) {
		obj, _ := createKey(r, body, member)
		obj["id"] = json.RawMessage(strconv.FormatInt(freshID(), 10))
		body, _ = json.Marshal(obj)
		r.Header.Set("Authorization", "Bearer "+token)
		ref.ServeHTTP(w, withBody(r, body))
	})
}

// createKey reads a create that is valid but for its credentials: its
// members, and the raw JSON of one of them ("" for any other request).
func createKey(r *http.Request, body []byte, member string) (map[string]json.RawMessage, string) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, ""
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &raw) != nil {
		return nil, ""
	}
	var id int64
	var name, tag string
	if json.Unmarshal(raw["id"], &id) != nil || json.Unmarshal(raw["name"], &name) != nil {
		return nil, ""
	}
	if t, ok := raw["tag"]; ok && json.Unmarshal(t, &tag) != nil {
		return nil, ""
	}
	return raw, string(raw[member])
}
