package exchange

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/plantcheck/plantcheck/internal/shell"
)

// Credentials travel in both directions: the clients' tokens, keys and
// cookies, and whatever the service hands back. None is ever printed or
// written: the value of every credential header, query parameter and body
// member is a secret, hidden by an evidence.Redactor in every piece of
// evidence (in any of the forms it knows: letter case, escapes, base64,
// hexadecimal), and the headers themselves are shown as <redacted> and
// reproduced from variables.

// credentialHeaders are the headers that carry a credential by name; any
// header whose name holds one of credentialWords does too.
var credentialHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}

var credentialWords = []string{"key", "token", "secret", "auth", "password", "passwd", "session", "cookie", "credential", "signature"}

// plainHeaders are the fields most exchanges carry that are no credential,
// known at once. Idempotency-Key (the IETF httpapi draft) is a key by name
// only: a unique value the client draws for one request, which grants
// nothing; hidden, it made the suite's own replays unreproducible (their
// curl read a variable nobody sets).
var plainHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true, "Cache-Control": true,
	"Connection": true, "Content-Encoding": true, "Content-Length": true, "Content-Type": true,
	"Date": true, "Host": true, "Server": true, "Traceparent": true, "User-Agent": true, "Vary": true,
	"Idempotency-Key": true,
}

// IsCredential reports whether a header's value is a secret. It runs on
// every header of every exchange, so it allocates nothing.
func IsCredential(name string) bool {
	if plainHeaders[name] {
		return false
	}
	return slices.ContainsFunc(credentialHeaders, func(h string) bool { return strings.EqualFold(name, h) }) ||
		slices.ContainsFunc(credentialWords, func(w string) bool { return containsFold(name, w) })
}

// containsFold reports whether s holds word (lower-case ASCII) in any
// letter case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// Secrets collects the secrets x carries: every credential header's (both
// ways) and query parameter's, and with body its request body's members.
func (x *Exchange) Secrets(body bool) []string {
	into := HeaderSecrets(x.RespHeader, HeaderSecrets(x.Header, nil))
	if u, err := url.Parse(x.URL); err == nil {
		into = QuerySecrets(u.RawQuery, into)
	}
	if body {
		into = BodySecrets(x.Body, into)
	}
	return into
}

// HeaderSecrets collects the secrets of a header: every credential header's
// value, and the parts of it a service may echo alone (the credential after
// an Authorization scheme, a Basic credential decoded, each cookie's value).
func HeaderSecrets(h http.Header, into []string) []string {
	for name, vs := range h {
		if !IsCredential(name) {
			continue
		}
		for _, v := range vs {
			scheme, cred, spaced := strings.Cut(strings.TrimSpace(v), " ")
			if !spaced && KnownScheme(scheme) {
				continue // a scheme's name alone ("Bearer"): no credential
			}
			if !spaced || !KnownScheme(scheme) {
				// No scheme: the whole value may be the credential.
				into = appendSecret(into, v)
				continue
			}
			// A scheme and its credential: the credential is the secret
			// (the scheme's name is not, and hiding it would garble every
			// message that names it); a blank one is no secret at all.
			cred = strings.TrimSpace(cred)
			into = appendSecret(into, cred)
			if strings.EqualFold(scheme, "Basic") {
				if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
					user, pass, _ := strings.Cut(string(dec), ":")
					into = appendSecret(appendSecret(appendSecret(into, string(dec)), pass), user)
				}
			}
			if containsFold(name, "cookie") {
				for _, part := range strings.Split(v, ";") {
					if _, val, ok := strings.Cut(part, "="); ok {
						into = appendSecret(into, strings.TrimSpace(val))
					}
				}
			}
		}
	}
	return into
}

// QuerySecrets collects the values of a query's credential parameters
// (api_key=, token=, ...), which a client may send in the URL.
func QuerySecrets(rawQuery string, into []string) []string {
	if rawQuery == "" {
		return into
	}
	q, _ := url.ParseQuery(rawQuery)
	for name, vs := range q {
		if IsCredential(name) {
			for _, v := range vs {
				into = appendSecret(into, v)
			}
		}
	}
	return into
}

// BodySecrets collects the values of a request body's credential members:
// a JSON object's (access_token, api_key, ...) at any depth, or a form's,
// where RFC 6750 (2.2) lets a client send its token. Under a member whose
// name is a credential's, every string is a secret, however
// deep ({"auth":{"value":"..."}}, {"tokens":["..."]}); a number or a
// boolean is not (a short one would hide every digit of a report). Most bodies name no
// credential, and are not decoded.
func BodySecrets(body []byte, into []string) []string {
	text := string(body[:min(len(body), maxSecretScan)])
	if !slices.ContainsFunc(credentialWords, func(w string) bool { return containsFold(text, w) }) {
		return into
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return QuerySecrets(string(body), into) // a form, perhaps
	}
	return jsonSecrets(v, false, 0, into)
}

// maxDepth bounds how deep jsonSecrets walks: encoding/json itself refuses
// a text nested past 10,000 levels, and evidence only needs the ones a
// person writes.
const maxDepth = 10000

// jsonSecrets collects the secrets of a decoded JSON value; secret: the
// value sits under a credential member.
func jsonSecrets(v any, secret bool, depth int, into []string) []string {
	if depth > maxDepth {
		return into
	}
	switch v := v.(type) {
	case map[string]any:
		for name, m := range v {
			into = jsonSecrets(m, secret || IsCredential(name), depth+1, into)
		}
	case []any:
		for _, m := range v {
			into = jsonSecrets(m, secret, depth+1, into)
		}
	case string:
		if secret {
			into = appendSecret(into, v)
		}
	}
	return into
}

// maxSecretScan bounds the bytes of a body searched for a credential's
// name.
const maxSecretScan = 64 << 10

func appendSecret(into []string, s string) []string {
	if s == "" || slices.Contains(into, s) {
		return into
	}
	return append(into, s)
}

// knownSchemes are the authentication schemes whose name a report may
// show: the IANA registry's, and a few in common use. Any other first word
// of an Authorization value may be the credential itself (a token sent
// without a scheme), so it is shown as <credential>.
var knownSchemes = []string{"basic", "bearer", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate", "ntlm", "oauth",
	"privatetoken", "scram-sha-1", "scram-sha-256", "vapid", "aws4-hmac-sha256", "token", "apikey"}

// KnownScheme reports whether scheme is one of knownSchemes, in any letter
// case. It runs on every exchange, so it allocates nothing.
func KnownScheme(scheme string) bool {
	return slices.ContainsFunc(knownSchemes, func(k string) bool { return strings.EqualFold(scheme, k) })
}

// AuthShape is an Authorization value with its secret taken out: what a
// report shows (desc) and what a shell command sends (sh, the credential
// read from $PLANTCHECK_TOKEN).
func AuthShape(v string) (desc, sh string) {
	scheme, cred, spaced := strings.Cut(v, " ")
	if !KnownScheme(scheme) {
		return "<credential> (no scheme)", shell.TokenVar
	}
	if !spaced {
		return scheme + " (no credential)", scheme
	}
	if strings.TrimSpace(cred) == "" {
		// Blanks only: nothing secret, and the exact bytes matter.
		return scheme + " (empty credential)", v
	}
	return scheme + " <credential>", scheme + " " + shell.TokenVar
}
