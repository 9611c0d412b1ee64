package run

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/reference"
)

// TestConformantCredentialReaders: servers that read the credential, or keep
// state keyed by the request, in ways the contract allows must pass every
// rule, SHOULD rules included, twice in a row when they keep answers of
// their own (issue 33). The suite sends a near miss with more after the
// token, and replays accepted creates without the token: these servers
// refuse every such request, but each reads the header, or answers a
// request it has seen, otherwise than the reference.
func TestConformantCredentialReaders(t *testing.T) {
	t.Parallel()
	const token = "variant-token-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123"
	variants := []struct {
		name string
		wrap func(ref http.Handler, token string) http.Handler
		// again: the variant keeps answers of its own, which a second run
		// meets otherwise than the first (passesTwice); one that only
		// reads the header otherwise keeps the reference's store, which
		// the reference's own second run holds the suite to
		// (TestUnusualButConformantTargets): one run shows it.
		again bool
	}{
		// RFC 6750, section 2.1: "Bearer" 1*SP b64token, matched whole,
		// the scheme in any letter case (RFC 9110, section 11.1).
		{"reads the credential with RFC 6750's grammar, any number of spaces after Bearer", asToken(func(value, token string) bool {
			m := rfc6750.FindStringSubmatch(value)
			return m != nil && m[1] == token
		}), false},
		// Python's header.split(None, 1)[1].strip(): the whole rest of the
		// field after the scheme and its white space.
		{"takes the whole rest of the field after Bearer and its white space", asToken(func(value, token string) bool {
			scheme, rest, ok := strings.Cut(value, " ")
			return ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(rest) == token
		}), false},
		{"caches its answers by the body's hash after the auth check", keptAfterAuth(func(_ *http.Request, body []byte) string {
			sum := sha256.Sum256(body)
			return string(sum[:])
		}), true},
		{"honours an Idempotency-Key after the auth check", keptAfterAuth(func(r *http.Request, _ []byte) string {
			return r.Header.Get("Idempotency-Key")
		}), true},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ref, err := reference.New(reference.Config{Token: token})
			if err != nil {
				t.Fatal(err)
			}
			if v.again {
				passesTwice(t, v.wrap(ref, token), "", token)
			} else {
				passes(t, v.wrap(ref, token), "", token, 1)
			}
		})
	}
}

// rfc6750 is RFC 6750's credentials, anchored at both ends.
var rfc6750 = regexp.MustCompile(`^(?i:Bearer) +([A-Za-z0-9._~+/-]+=*)$`)

// asToken lets a request through to the reference as if it carried the
// token when its one Authorization field is one that accept takes, and
// refuses it as the reference does otherwise.
func asToken(accept func(value, token string) bool) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Authorization"); len(v) == 1 {
				if accept(v[0], token) {
					r.Header.Set("Authorization", "Bearer "+token)
				} else {
					r.Header.Set("Authorization", "Bearer refused-"+token)
				}
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// keptAfterAuth keeps each 200 answer under the key of its request ("":
// none) and answers a request with a kept key with the kept answer, once
// the request has passed the reference's own credential check: "Bearer",
// one space and the token. Every other request the reference answers.
func keptAfterAuth(key func(r *http.Request, body []byte) string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, token string) http.Handler {
		var mu sync.Mutex
		kept := map[string]*httptest.ResponseRecorder{}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Values("Authorization"); len(v) != 1 || v[0] != "Bearer "+token {
				ref.ServeHTTP(w, r) // refused there
				return
			}
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			k := key(r, body)
			mu.Lock()
			rec := kept[k]
			mu.Unlock()
			if k == "" || rec == nil {
				rec = httptest.NewRecorder()
				ref.ServeHTTP(rec, r)
				if k != "" && rec.Code == http.StatusOK {
					mu.Lock()
					kept[k] = rec
					mu.Unlock()
				}
			}
			copyHeader(w.Header(), rec.Header())
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	}
}
