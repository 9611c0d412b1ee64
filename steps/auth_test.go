package steps

import (
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
		{"hex, 32", "0123456789abcdef0123456789abcdef", []string{"changed after its 72nd byte"}},
		{"letters and digits, 80", strings.Repeat("aB3x", 20), nil},
		{"exactly 72", strings.Repeat("k", 72), nil},
		{"digits only", "12345678901234567890", []string{"with the case of its letters changed", "changed after its 72nd byte"}},
		{"one character", "Z", []string{"with its last character dropped", "cut to its first half", "changed after its 72nd byte"}},
		{"ends in x", "tokenwithx", []string{"changed after its 72nd byte"}},
	}
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
	s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: tok, Client: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range nearMissesOf(tok) {
		if got := s.redact("echoed: " + v + "."); strings.Contains(got, v) || !strings.Contains(got, redacted) {
			t.Errorf("redact leaves the variant %q: %q", v, got)
		}
	}
	if got, want := s.redact("a plain answer"), "a plain answer"; got != want {
		t.Errorf("redact(%q) = %q", want, got)
	}
}
