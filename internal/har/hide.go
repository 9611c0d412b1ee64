package har

import (
	"strings"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// Hider hides the secrets of one exchange in what is written of it: the
// user's token, when known (run), as <token>, so that "Bearer <token>"
// keeps its shape for `plantcheck judge`; every other as <redacted>.
type Hider struct {
	token string
	red   *evidence.Redactor
}

// NewHider hides token (none when "") as <token>, then what red knows
// (nil: nothing more) as <redacted>.
func NewHider(token string, red *evidence.Redactor) *Hider { return &Hider{token: token, red: red} }

// String returns s with every secret hidden.
func (h *Hider) String(s string) string {
	if h.token != "" {
		s = strings.ReplaceAll(s, h.token, evidence.TokenMark)
	}
	return h.red.String(s)
}

// header hides a header's value. A credential header's is written by its
// shape, never by another secret's windows: an Authorization value keeps
// a known scheme, its credential <token> or <redacted> (a blank one kept);
// one with no known scheme is <credential> whole; any other credential
// header's value is <redacted>.
func (h *Hider) header(name, v string) string {
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

// margin is how far past a cut a secret across it must be looked for.
func (h *Hider) margin() int {
	return max(h.red.Margin(), 12*len(h.token)+16)
}
