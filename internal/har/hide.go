package har

import (
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// Secrets in a HAR file are hidden as in every report: which values are
// secrets is package exchange's to say (credential headers, query
// parameters and body members), and their hiding, in every form a target
// may echo them, package evidence's. The user's token, when the writer
// knows it (run), is written <token>, so that an Authorization header
// keeps its shape ("Bearer <token>") for `plantcheck judge` to read; every
// other secret is written <redacted> ("Bearer <redacted>" for a
// credential the proxy saw).

// Hider hides the secrets of one exchange in what is written of it.
type Hider struct {
	token string
	red   *evidence.Redactor
}

// NewHider hides token (none when "") as <token>, then what red knows
// (nil: nothing more) as <redacted>.
func NewHider(token string, red *evidence.Redactor) *Hider { return &Hider{token: token, red: red} }

// String returns s with every secret hidden.
func (h *Hider) String(s string) string {
	if h == nil {
		return s
	}
	if h.token != "" {
		s = strings.ReplaceAll(s, h.token, evidence.TokenMark)
	}
	return h.red.String(s)
}

// Bytes returns b with every secret hidden.
func (h *Hider) Bytes(b []byte) []byte {
	if h == nil || len(b) == 0 {
		return b
	}
	if h.token != "" && strings.Contains(string(b), h.token) {
		b = []byte(strings.ReplaceAll(string(b), h.token, evidence.TokenMark))
	}
	return h.red.Bytes(b)
}

// header hides a header's value. A credential header's is written by its
// shape, never by the windows of another secret (a credential seen
// elsewhere holding "Bearer abc" would eat into every scheme): an
// Authorization value keeps its scheme when it is a known one, its
// credential written <token> (the user's) or <redacted>, a blank one kept
// as it is; a value with no known scheme is <credential> whole (which
// judge reads as a credential without a scheme); any other credential
// header's value is <redacted>.
func (h *Hider) header(name, v string) string {
	if h == nil {
		return v
	}
	switch {
	case strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization"):
		scheme, cred, spaced := strings.Cut(v, " ")
		switch {
		case !exchange.KnownScheme(scheme):
			if h.token != "" && v == h.token {
				return evidence.TokenMark
			}
			return evidence.CredentialMark
		case !spaced || strings.TrimSpace(cred) == "":
			return v // no credential: nothing secret, and the bytes matter
		case h.token != "" && cred == h.token:
			return scheme + " " + evidence.TokenMark
		}
		lead := cred[:len(cred)-len(strings.TrimLeft(cred, " "))]
		return scheme + " " + lead + evidence.Redacted
	case exchange.IsCredential(name):
		if h.token != "" && v == h.token {
			return evidence.TokenMark
		}
		return evidence.Redacted
	}
	return h.String(v)
}

// margin is how far past a cut a text must be hidden for a secret across
// the cut to be found whole.
func (h *Hider) margin() int {
	if h == nil {
		return 0
	}
	return max(h.red.Margin(), 12*len(h.token)+16)
}
