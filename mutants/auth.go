package mutants

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/plantcheck/plantcheck/rules"
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
