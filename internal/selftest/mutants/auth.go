package mutants

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
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

	// Authentication: state keyed by the request, consulted before the
	// credential (issue 33).
	{
		Name: "replay-cache-before-auth", Defect: "keeps each 200 answer under a hash of the request body and answers a body it has seen with the kept answer before it checks the credential",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthUnknown},
		Origin: "a response cache in front of the auth check keyed by the request without its Authorization header (nginx proxy_cache with POST among proxy_cache_methods and $request_body in proxy_cache_key, a memoised handler)",
		Wrap: keptBeforeAuth(func(_ *http.Request, body []byte) string {
			sum := sha256.Sum256(body)
			return string(sum[:])
		}),
	},
	{
		Name: "idempotency-before-auth", Defect: "keeps each 200 answer under the request's Idempotency-Key and answers a request with a known key with the kept answer before it checks the credential",
		Rules:  []rules.RuleID{rules.AuthMissing},
		Origin: "idempotency middleware (modelled on Stripe's Idempotency-Key) mounted before the authentication middleware, its store keyed by the key alone",
		Wrap: keptBeforeAuth(func(r *http.Request, _ []byte) string {
			return r.Header.Get("Idempotency-Key")
		}),
	},
	{
		Name: "dedup-id-before-auth", Defect: "takes a create whose id it has stored as a success, before it checks the credential",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthUnknown},
		Origin: "an idempotent create (INSERT ... ON CONFLICT (id) DO NOTHING, then the plant sent is answered) whose de-duplication runs before the auth check",
		Wrap:   knownBeforeAuth("id"),
	},
	{
		Name: "dedup-name-before-auth", Defect: "takes a create whose name it has stored as a success, before it checks the credential",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthUnknown},
		Origin: "a de-duplication table keyed by the plant's name (a unique name column with ON CONFLICT DO NOTHING, a seen-names set) consulted before the auth check",
		Wrap:   knownBeforeAuth("name"),
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
		Name: "token-first-32", Defect: "compares only the first 32 bytes of the bearer token",
		Rules: []rules.RuleID{rules.AuthNearMiss}, LongToken: true,
		Origin: "a fixed-size buffer or column (char(32), a 32-byte key) that the token is cut to before it is compared",
		Wrap: acceptBearer(func(cred, token string) bool {
			return cred[:min(len(cred), 32)] == token[:min(len(token), 32)]
		}),
	},
	{
		Name: "token-base64-padding", Defect: "compares the bearer token with its base64 padding read away, so the token with = added or removed is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a token decoded leniently as base64 before it is compared (Go's base64 with padding trimmed, Python's b64decode with padding appended, JWT libraries' base64url)",
		Wrap: acceptBearer(func(cred, token string) bool {
			return strings.TrimRight(cred, "=") == strings.TrimRight(token, "=")
		}),
	},
	{
		Name: "token-base64-alphabet", Defect: "reads the bearer token in either base64 alphabet (+/ or -_), so the token spelt in the other is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a decoder that accepts both RFC 4648 alphabets (Node's Buffer.from(s, 'base64'), many JWT libraries), the decoded bytes then compared",
		Wrap: acceptBearer(func(cred, token string) bool {
			std := strings.NewReplacer("-", "+", "_", "/")
			return std.Replace(cred) == std.Replace(token)
		}),
	},
	{
		Name: "token-percent-decoded", Defect: "percent-decodes the bearer token before it compares it, so %41 is taken for A",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a credential passed through URL decoding on its way (a framework that decodes header values as it does query parameters, a token round-tripped through a URL)",
		Wrap: acceptBearer(func(cred, token string) bool {
			u, err := url.PathUnescape(cred)
			return err == nil && u == token
		}),
	},
	{
		Name: "token-width-folded", Defect: "folds full-width characters to ASCII in the bearer token before it compares it, so Ａ is taken for A",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a credential passed through Unicode compatibility normalisation (NFKC, as identifier and user-name handling applies it) or width folding before the comparison",
		Wrap: acceptBearer(func(cred, token string) bool {
			return strings.Map(func(r rune) rune {
				if r >= 0xFF01 && r <= 0xFF5E {
					return r - 0xFEE0
				}
				return r
			}, cred) == token
		}),
	},
	{
		Name: "token-strip-space", Defect: "removes white space inside the bearer token before it compares it",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a credential 'cleaned' of white space (strings.Fields joined, a regular expression replacing \\s+), as copied keys often are",
		Wrap: acceptBearer(func(cred, token string) bool {
			return strings.Join(strings.Fields(cred), "") == token
		}),
	},
	// Authentication: a credential read up to a delimiter, or from the
	// field's end (issue 33). Each checks the scheme as real code does and
	// reads the credential as the parser named in its origin.
	{
		Name: "token-split-space", Defect: "reads the credential as the second of the field's words split at each space, so the token with a space and more after it is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "const [scheme, token] = header.split(' ') in Node (and Python's header.split()[1]), which drops every word after the second",
		Wrap: acceptAuthorization(func(value, token string) bool {
			words := strings.Split(value, " ")
			return len(words) >= 2 && words[0] == "Bearer" && words[1] == token
		}),
	},
	{
		Name: "token-split-comma", Defect: "reads the Authorization field as a comma-separated list and checks its first element, so the token with a comma and more after it is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: "a header read as a list, header.split(',')[0].trim(), as is right for Accept or X-Forwarded-For and wrong for Authorization (two fields joined by a proxy)",
		Wrap: acceptAuthorization(func(value, token string) bool {
			first, _, _ := strings.Cut(value, ",")
			return strings.TrimSpace(first) == "Bearer "+token
		}),
	},
	{
		Name: "token-regex-unanchored", Defect: "matches the credential with a regular expression of b64token's characters not anchored at its end, so the token with any other character and more after it is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: `a pattern such as ^Bearer ([A-Za-z0-9._~+/-]+=*) or Bearer (\S+) without $ (re.match in Python, String.match in JavaScript), whose group is compared`,
		Wrap: acceptAuthorization(func(value, token string) bool {
			m := b64tokenPrefix.FindStringSubmatch(value)
			return m != nil && m[1] == token
		}),
	},
	{
		Name: "token-last-word", Defect: "reads the credential as the last word of the field, so a word and a space before the token are accepted (and Bearer, a tab and the token)",
		Rules:  []rules.RuleID{rules.AuthNearMiss, rules.AuthScheme},
		Origin: "Python's header.split()[-1] or JavaScript's header.split(' ').pop(), after a check that the field begins with Bearer",
		Wrap: acceptAuthorization(func(value, token string) bool {
			words := strings.Fields(value)
			return len(words) >= 2 && words[0] == "Bearer" && words[len(words)-1] == token
		}),
	},
	{
		Name: "token-replace-scheme", Defect: "takes every \"Bearer \" out of the field and compares the rest, so Bearer Bearer <token> is accepted",
		Rules:  []rules.RuleID{rules.AuthNearMiss},
		Origin: `header.startswith("Bearer ") then header.replace("Bearer ", "") in Python, whose replace takes out every occurrence, not the first`,
		Wrap: acceptAuthorization(func(value, token string) bool {
			return strings.HasPrefix(value, "Bearer ") && strings.ReplaceAll(value, "Bearer ", "") == token
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

	// Narrow siblings (issue 41) of any-scheme, token-slice-7,
	// token-split-space and auth-401: the same defect on the footprint
	// real code gives it, each caught by a fixed scenario.
	{
		Name: "token-scheme-alias", Defect: "accepts the issued token under the scheme Token as well as Bearer",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "an API that takes its token under the scheme Token beside Bearer, as GitHub's API does and Django REST framework's TokenAuthentication asks (keyword Token)",
		Wrap:   acceptAuthorization(inScheme("Token")),
	},
	{
		Name: "jwt-scheme", Defect: "accepts the issued token under the scheme JWT as well as Bearer",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "passport-jwt's ExtractJwt.fromAuthHeaderWithScheme('JWT'), or djangorestframework-jwt's header prefix JWT (simplejwt's AUTH_HEADER_TYPES = ('Bearer', 'JWT')), beside Bearer",
		Wrap:   acceptAuthorization(inScheme("JWT")),
	},
	{
		Name: "bearer-prefix-slice-7", Defect: "checks that the field begins with Bearer, without its space, and takes the credential from its eighth byte on, so Bearer, a tab and the token pass",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: `if (!header.startsWith("Bearer")) ... token = header.substring(7) in a Java or Node filter: the prefix checked without the space it then skips`,
		Wrap: acceptAuthorization(func(value, token string) bool {
			return strings.HasPrefix(value, "Bearer") && len(value) > 7 && value[7:] == token
		}),
	},
	{
		Name: "token-split-whitespace", Defect: "reads the field as two words split at any white space, so Bearer, a tab and the token pass",
		Rules:  []rules.RuleID{rules.AuthScheme},
		Origin: "Python's scheme, token = header.split() (Go's strings.Fields), which splits at tabs as at spaces",
		Wrap: acceptAuthorization(func(value, token string) bool {
			words := strings.Fields(value)
			return len(words) == 2 && words[0] == "Bearer" && words[1] == token
		}),
	},
	{
		Name: "httpbearer-403", Defect: "answers a request without an Authorization header, with another scheme or with an empty credential with 403 and {\"detail\": ...}; a wrong token still gets 400 and an Error record",
		Rules:  []rules.RuleID{rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty, rules.ResponseDocumented},
		Origin: "FastAPI's HTTPBearer security dependency, which answers 403 \"Not authenticated\" or \"Invalid authentication credentials\" before the service's own token check runs",
		Wrap:   httpBearer403,
	},
}

// inScheme takes a field whose scheme is scheme (in any letter case), a
// space and the issued token.
func inScheme(scheme string) func(value, token string) bool {
	return func(value, token string) bool {
		s, cred, ok := strings.Cut(value, " ")
		return ok && strings.EqualFold(s, scheme) && cred == token
	}
}

// httpBearer403 answers as FastAPI's HTTPBearer does before the handler
// runs: the field partitioned at its first space, no field or no
// credential is "Not authenticated", a scheme other than bearer "Invalid
// authentication credentials", each 403 with FastAPI's {"detail": ...}.
func httpBearer403(ref http.Handler, _ string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		writeAnswer(w, http.StatusForbidden, "application/json", string(b))
	})
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

// b64tokenPrefix is RFC 6750's credential without an anchor at its end: it
// matches the longest run of b64token's characters after "Bearer ", and
// whatever follows it.
var b64tokenPrefix = regexp.MustCompile(`^Bearer ([A-Za-z0-9._~+/-]+=*)`)

// keptBeforeAuth keeps each 200 answer under the key of its request and
// answers a request whose key it keeps with that answer, whatever its
// credentials; the reference answers every other request. A request with
// the key "" is never answered from the store.
func keptBeforeAuth(key func(r *http.Request, body []byte) string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		var mu sync.Mutex
		kept := map[string]*response{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			k := key(r, body)
			mu.Lock()
			res := kept[k]
			mu.Unlock()
			if k != "" && res != nil {
				for name, vs := range res.header {
					w.Header()[name] = vs
				}
				w.WriteHeader(res.status)
				w.Write(res.body)
				return
			}
			onResponse(func(_ *http.Request, res *response) {
				if k != "" && res.status == http.StatusOK {
					mu.Lock()
					kept[k] = &response{res.status, res.header.Clone(), bytes.Clone(res.body)}
					mu.Unlock()
				}
			})(ref, token).ServeHTTP(w, withBody(r, body))
		})
	}
}

// knownBeforeAuth keeps the value of member (id or name) of every create
// answered 200, and takes a later create with a known value as a success
// whatever its credentials: the reference stores it under a fresh id as if
// the issued token came with it, so its answer echoes the plant sent. Only
// a create that is valid but for its credentials is taken so (a JSON
// NewPlant, declared application/json), so that the defect is the one.
func knownBeforeAuth(member string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		var mu sync.Mutex
		known := map[string]bool{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			obj, k := createKey(r, body, member)
			mu.Lock()
			seen := k != "" && known[k]
			mu.Unlock()
			if seen {
				obj["id"] = json.Number(strconv.FormatInt(freshID(), 10))
				body, _ = json.Marshal(obj)
				r.Header.Set("Authorization", "Bearer "+token)
				ref.ServeHTTP(w, withBody(r, body))
				return
			}
			onResponse(func(_ *http.Request, res *response) {
				if k != "" && res.status == http.StatusOK {
					mu.Lock()
					known[k] = true
					mu.Unlock()
				}
			})(ref, token).ServeHTTP(w, withBody(r, body))
		})
	}
}

// createKey reads a create that is valid but for its credentials: its
// members, and the raw JSON of one of them ("" for any other request).
func createKey(r *http.Request, body []byte, member string) (map[string]any, string) {
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
	obj := map[string]any{}
	for k, v := range raw {
		obj[k] = v
	}
	return obj, string(raw[member])
}

// The mutant of the scheme's letter case (AUTH-SCHEME-CASE, a SHOULD): it
// keeps the letter of the spec, so the self-test catches it at SHOULD level,
// exit 0 without --strict.
var authSchemeCaseMutants = []Mutant{
	{
		Name: "bearer-case-sensitive", Defect: "refuses the issued token under the scheme written bearer or BEARER, with 400 and an Error record",
		Rules:  []rules.RuleID{rules.AuthSchemeCase},
		Origin: "a credential check written header.startsWith('Bearer ') (Express middleware), or auth[:7] == \"Bearer \"",
		Wrap: refuseWhen(func(r *http.Request) bool {
			scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			return scheme != "Bearer"
		}, "The request must carry Authorization: Bearer <token>."),
	},
}
