package steps

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNearMisses: every variant is made from the token as its name says,
// differs from the token, is hidden from the evidence, and is made again by
// its shell form from $PLANTCHECK_TOKEN alone; a variant that cannot be made
// from a token says why.
func TestNearMisses(t *testing.T) {
	tokens := []struct {
		name, token string
		impossible  []string // variants that cannot be made
	}{
		{"hex, 32", "0123456789abcdef0123456789abcdef", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"letters and digits, 80", strings.Repeat("aB3x", 20), []string{"in base64's other alphabet"}},
		{"exactly 72", strings.Repeat("k", 72), []string{"in base64's other alphabet"}},
		{"digits only", "12345678901234567890", []string{"with the case of its letters changed", "changed after its 72nd byte", "in base64's other alphabet"}},
		{"one character", "Z", []string{"with its last character dropped", "cut to its first half", "changed after its 72nd byte", "in base64's other alphabet", "with a space inside it"}},
		{"ends in x", "tokenwithx", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		// The last character of an HS256 signature carries two bits that
		// decode to nothing: "w" and "x" are the same bytes.
		{"a JWT, signature ending in w", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwIn0.7HyYfzAZdorl1OBdejiAlme05DK8F44zslgWJs0eiFw", []string{"in base64's other alphabet"}},
		{"base64url, ending in a digit", "7HyYfzAZdorl1OBdejiAlme05DK8F44zslgWJs0eiF4", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"base64, padded", "c2VjcmV0LXRva2VuLXZhbHVlLTE=", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"base64, padded twice", "c2VjcmV0LXRva2VuLXZhbHVlLQ==", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"base64, one byte", "QQ==", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"base64url with - and _", "Zm9v-YmFy_YmF6", []string{"changed after its 72nd byte"}},
		{"base64 with + and /", "Zm9v+YmFy/YmF6==", []string{"changed after its 72nd byte"}},
		{"begins past ASCII", "€12-34", []string{"changed after its 72nd byte", "with its first character percent-encoded", "with the case of its letters changed", "with its first character in its full-width form"}},
		{"begins with a quote", `"q'uo\te$x`, []string{"changed after its 72nd byte", "in base64's other alphabet"}},
		{"begins with a tilde", "~tilde`tok", []string{"changed after its 72nd byte", "in base64's other alphabet"}},
	}
	// A check that normalises the token reads these variants as the token
	// itself, on purpose: the contract's token is its text.
	normalised := map[string]bool{"with its base64 padding added or removed": true, "in base64's other alphabet": true,
		"with its first character percent-encoded": true, "with a space inside it": true, "with its first character in its full-width form": true}
	for _, tt := range tokens {
		t.Run(tt.name, func(t *testing.T) {
			for _, nm := range nearMisses {
				v, shell, why := nm.make(tt.token)
				wantImpossible := strings.Contains(strings.Join(tt.impossible, "|"), nm.name)
				if (why != "") != wantImpossible {
					t.Errorf("%s: impossible = %q, want impossible %v", nm.name, why, wantImpossible)
					continue
				}
				if why != "" {
					continue
				}
				if v == tt.token || v == "" {
					t.Errorf("%s: the variant %q is the token or empty", nm.name, v)
				}
				if same, how := decodesAlike(tt.token, v); same && !normalised[nm.name] {
					t.Errorf("%s: the variant %q decodes to the token's bytes in %s", nm.name, v, how)
				}
				if len(tt.token) > 3 && strings.Contains(shell, tt.token) {
					t.Errorf("%s: the shell form holds the token: %s", nm.name, shell)
				}
				cmd := exec.Command("sh", "-c", `printf '%s' "`+shell+`"`)
				cmd.Env = append(os.Environ(), "PLANTCHECK_TOKEN="+tt.token)
				if out, err := cmd.Output(); err != nil || string(out) != v {
					t.Errorf("%s: the shell form %s makes %q (%v), want %q", nm.name, shell, out, err, v)
				}
			}
		})
	}
	// The variants a long token gives, each a secret of the evidence.
	tok := strings.Repeat("aB3x", 20)
	s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: tok, Client: &http.Client{}, Validator: validator()})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range nearMissesOf(tok) {
		if got := s.Redact("echoed: " + v + "."); strings.Contains(got, v) || !strings.Contains(got, redacted) {
			t.Errorf("redact leaves the variant %q: %q", v, got)
		}
	}
	if got, want := s.Redact("a plain answer"), "a plain answer"; got != want {
		t.Errorf("redact(%q) = %q", want, got)
	}
}

// decodesAlike reports whether a lenient base64 decoder (Go's default, as
// JWT libraries use it, and one that takes the padding as optional) reads
// the token and the variant as the same bytes: a service that compares
// decoded secrets would then rightly accept the variant.
func decodesAlike(token, variant string) (bool, string) {
	encodings := []struct {
		name string
		enc  *base64.Encoding
	}{{"base64", base64.RawStdEncoding}, {"base64url", base64.RawURLEncoding}}
	for _, e := range encodings {
		// Each segment of a JWT is decoded on its own.
		ts, vs := strings.Split(token, "."), strings.Split(variant, ".")
		alike := len(ts) == len(vs)
		for i := 0; alike && i < len(ts); i++ {
			a, errA := e.enc.DecodeString(strings.TrimRight(ts[i], "="))
			b, errB := e.enc.DecodeString(strings.TrimRight(vs[i], "="))
			alike = errA == nil && errB == nil && bytes.Equal(a, b)
		}
		if alike {
			return true, e.name
		}
	}
	return false, ""
}

// redacted stands for the user's token wherever a target echoed it.
const redacted = "<redacted>"
