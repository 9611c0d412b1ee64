package exchange

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/shell"
)

func TestCredentials(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "X-Api-Key": true, "X-Auth-Token": true,
		"X-Client-Secret": true, "Api-KEY": true, "X-Session-Id": true,
		"Content-Type": false, "Accept": false, "User-Agent": false, "Keep-Alive": false, "X-Request-Id": false, "Idempotency-Key": false,
	} {
		if got := IsCredential(name); got != want {
			t.Errorf("IsCredential(%q) = %v, want %v", name, got, want)
		}
	}
	for v, want := range map[string][2]string{
		"Bearer s3cret":  {"Bearer <credential>", "Bearer ${PLANTCHECK_TOKEN}"},
		"bearer s3cret":  {"bearer <credential>", "bearer ${PLANTCHECK_TOKEN}"},
		"Basic dXNlcg==": {"Basic <credential>", "Basic ${PLANTCHECK_TOKEN}"},
		"Bearer ":        {"Bearer (empty credential)", "Bearer "},
		"Bearer":         {"Bearer (no credential)", "Bearer"},
		"s3cret":         {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
		"Bearers3cret":   {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
		"s3cret more":    {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
	} {
		if desc, shell := AuthShape(v); desc != want[0] || shell != want[1] {
			t.Errorf("AuthShape(%q) = %q, %q; want %q, %q", v, desc, shell, want[0], want[1])
		}
	}
	if got, want := shell.HeaderVar("X-Api-Key"), "PLANTCHECK_HEADER_X_API_KEY"; got != want {
		t.Errorf("headerVar = %q, want %q (as plantcheck run names it)", got, want)
	}
	secrets := HeaderSecrets(http.Header{"Authorization": {"Bearer tok-1"}, "Cookie": {"a=c1; b=c2"}, "Accept": {"x"}}, nil)
	for _, want := range []string{"tok-1", "a=c1; b=c2", "c1", "c2"} {
		if !strings.Contains(strings.Join(secrets, "\n"), want) {
			t.Errorf("secrets %q lack %q", secrets, want)
		}
	}
	for _, s := range secrets {
		if s == "Bearer" || s == "x" {
			t.Errorf("secrets %q hold %q, which is no secret", secrets, s)
		}
	}
	// A scheme's name alone carries no credential: hiding it would garble
	// every request line that names the scheme.
	for _, v := range []string{"Bearer", "bearer ", " Basic"} {
		if got := HeaderSecrets(http.Header{"Authorization": {v}}, nil); len(got) != 0 {
			t.Errorf("HeaderSecrets(Authorization: %q) = %q, want none", v, got)
		}
	}
}

// TestSecretsOfBody: the credential members of a JSON or form body are
// secrets, and nothing else of it is.
func TestSecretsOfBody(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"a plant", `{"id":1,"name":"Fern","tag":"green"}`, nil},
		{"access_token member", `{"id":1,"name":"Fern","access_token":"tok-1"}`, []string{"tok-1"}},
		{"API key in another case", `{"id":1,"name":"Fern","X-API-KEY":"k-2"}`, []string{"k-2"}},
		{"a credential that is not a string", `{"id":1,"name":"Fern","token":7}`, nil},
		{"nested at every depth", `{"id":"x","name":"n","password":"p-1","auth":{"token":"t-2"},"tokens":["t-3"],"credentials":{"api_key":{"value":"v-4"}}}`,
			[]string{"p-1", "t-2", "t-3", "v-4"}},
		{"an array of objects under a credential", `{"id":1,"name":"n","secrets":[{"a":"s-1"},{"b":["s-2"]}]}`, []string{"s-1", "s-2"}},
		{"a credential member inside a plain one", `{"id":1,"name":"n","meta":{"x":{"session":"s-3"}},"other":{"y":"plain"}}`, []string{"s-3"}},
		{"a credential inside an array at the top", `[{"access_token":"tok-4"}]`, []string{"tok-4"}},
		{"a name that says token", `{"id":1,"name":"token"}`, nil},
		{"a form", `id=1&name=Fern&access_token=tok-3`, []string{"tok-3"}},
		{"not JSON, no credential", `{"id":1,`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := BodySecrets([]byte(tc.body), nil)
			slices.Sort(got)
			if want := slices.Sorted(slices.Values(tc.want)); !slices.Equal(got, want) {
				t.Errorf("BodySecrets(%s) = %q, want %q", tc.body, got, want)
			}
		})
	}
}

// TestNamesCredential holds namesCredential to containsFold on bodies with
// a credential's name at any place (the end too), in any case, beside
// bytes that fold to no letter and beside a word's start or first part.
func TestNamesCredential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	filler := []string{"x", "Monstera ", "@", "`", "\xc3\xa9", "{\"name\":\"", "KE", "Ke", "tok", "SECRE", "\x0b", "_", "\xcb\xc5", "se", "SIGNATUR", "Cooki"}
	found := 0
	for k := range 4000 {
		var b []byte
		for size := rng.IntN(3 * 4 << 10); len(b) < size; {
			b = append(b, filler[rng.IntN(len(filler))]...)
		}
		if rng.IntN(2) == 0 {
			w := []byte(credentialWords[rng.IntN(len(credentialWords))])
			for i := range w {
				if rng.IntN(2) == 0 {
					w[i] -= 'a' - 'A'
				}
			}
			at := rng.IntN(len(b) + 1)
			if k%2 == 0 {
				at = len(b) // at the end
			}
			b = slices.Insert(b, at, w...)
		}
		want := slices.ContainsFunc(credentialWords, func(w string) bool { return containsFold(string(b), w) })
		if got := namesCredential(b); got != want {
			t.Fatalf("namesCredential(%q) = %v, want %v", b, got, want)
		}
		if want {
			found++
		}
	}
	if found < 1000 {
		t.Errorf("a credential's name in %d bodies of 4,000: too few", found)
	}
}
