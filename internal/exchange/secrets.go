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

// credentialHeaders are the headers that carry a credential by name; any
// header whose name holds one of credentialWords does too.
var credentialHeaders = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}

var credentialWords = []string{"key", "token", "secret", "auth", "password", "passwd", "session", "cookie", "credential", "signature"}

// plainHeaders are common fields that are no credential. Idempotency-Key
// is a key by name only: it grants nothing, and hidden it made the suite's
// replays unreproducible.
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

// containsFold reports whether s holds word (lower-case ASCII), any case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if foldedAt(s[i:], word) {
			return true
		}
	}
	return false
}

// namesCredential reports whether b holds one of credentialWords in any
// case, as containsFold finds them, in one pass: only where a word's first
// two letters stand (either case) is a word compared.
func namesCredential(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		m := wordStarts[b[i]|0x20]
		if m == 0 {
			continue
		}
		if c := (b[i+1] | 0x20) - 'a'; c >= 26 || m&(1<<c) == 0 {
			continue
		}
		for _, w := range credentialWords {
			if len(b)-i >= len(w) && foldedAt(b[i:], w) {
				return true
			}
		}
	}
	return false
}

// foldedAt reports whether b begins with word (lower-case ASCII), any
// case.
func foldedAt[T string | []byte](b T, word string) bool {
	for j := 0; j < len(word); j++ {
		if b[j]|0x20 != word[j] {
			return false
		}
	}
	return true
}

// wordStarts has, for each first letter of credentialWords, a bit for
// each second letter that follows it in one ('a' the lowest).
var wordStarts = func() (t [256]uint32) {
	for _, w := range credentialWords {
		t[w[0]] |= 1 << (w[1] - 'a')
	}
	return t
}()

// Secrets collects the secrets x carries: credential headers' (both ways),
// query parameters', and with body its request body's.
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
			// The credential is the secret, not the scheme's name.
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

// BodySecrets collects the values of a request body's credential members,
// a JSON object's at any depth or a form's (RFC 6750, 2.2): every string
// under a member named as a credential; not a number (a short one would
// hide every digit of a report). A body that names none is not decoded.
func BodySecrets(body []byte, into []string) []string {
	if !namesCredential(body[:min(len(body), maxSecretScan)]) {
		return into
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return QuerySecrets(string(body), into) // a form, perhaps
	}
	return jsonSecrets(v, false, 0, into)
}

// maxDepth bounds how deep jsonSecrets walks (encoding/json's own bound).
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

// knownSchemes are the authentication schemes a report may name (IANA's,
// and a few common ones); any other first word may be the credential.
var knownSchemes = []string{"basic", "bearer", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate", "ntlm", "oauth",
	"privatetoken", "scram-sha-1", "scram-sha-256", "vapid", "aws4-hmac-sha256", "token", "apikey"}

// KnownScheme reports whether scheme is one of knownSchemes, any case.
func KnownScheme(scheme string) bool {
	return slices.ContainsFunc(knownSchemes, func(k string) bool { return strings.EqualFold(scheme, k) })
}

// AuthShape is an Authorization value without its secret: what a report
// shows (desc) and what a shell command sends (sh).
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
