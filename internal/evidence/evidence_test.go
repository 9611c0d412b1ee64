package evidence

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

const canary = "Canary/Tok+en_0123456789-abcdefXYZ"

// forms are the ways a target may echo the canary: each must be hidden.
func forms(tok string) map[string]string {
	js, _ := json.Marshal(tok)
	var allU strings.Builder
	for _, r := range tok {
		fmt.Fprintf(&allU, `\u%04x`, r)
	}
	return map[string]string{
		"as it is":                    tok,
		"lower case":                  strings.ToLower(tok),
		"upper case":                  strings.ToUpper(tok),
		"JSON string":                 string(js),
		"slash escaped":               strings.ReplaceAll(tok, "/", `\/`),
		"every character \\u-escaped": allU.String(),
		"URL query escape":            url.QueryEscape(tok),
		"URL path escape, lower hex":  strings.ToLower(url.PathEscape(tok)),
		"HTML references":             strings.ReplaceAll(strings.ReplaceAll(tok, "/", "&#47;"), "+", "&#x2B;"),
		"base64":                      base64.StdEncoding.EncodeToString([]byte(tok)),
		"base64url, no padding":       base64.RawURLEncoding.EncodeToString([]byte(tok)),
		"base64 of Bearer <token>":    base64.StdEncoding.EncodeToString([]byte("Bearer " + tok)),
		"base64, offset by one":       base64.StdEncoding.EncodeToString([]byte("x" + tok)),
		"base64, offset by two":       base64.URLEncoding.EncodeToString([]byte("xy" + tok)),
		"hexadecimal":                 hex.EncodeToString([]byte(tok)),
		"hexadecimal, upper case":     strings.ToUpper(hex.EncodeToString([]byte(tok))),
		"its first 12 characters":     tok[:12],
		"12 characters from within":   tok[9:21],
		"its last 12, upper case":     strings.ToUpper(tok[len(tok)-12:]),
	}
}

func TestRedactorHidesEveryForm(t *testing.T) {
	r := New(canary)
	for name, form := range forms(canary) {
		t.Run(name, func(t *testing.T) {
			text := `{"echo":"` + form + `","ok":1}`
			got := r.String(text)
			if strings.Contains(got, form) || !strings.Contains(got, Redacted) {
				t.Errorf("String(%q) = %q, want the form hidden", text, got)
			}
			if !strings.HasPrefix(got, `{"echo":"`) || !strings.HasSuffix(got, `","ok":1}`) {
				t.Errorf("String(%q) = %q, hides more than the secret", text, got)
			}
			if !r.Contains(text) {
				t.Errorf("Contains(%q) = false", text)
			}
		})
	}
}

func TestRedactorLeavesOtherText(t *testing.T) {
	r := New(canary)
	for _, s := range []string{
		"", "plain answer", `{"name":"Monstera","tag":"indoor"}`,
		canary[:11],          // fewer than 12 characters of it
		"Tok+en_0123" + "zz", // 11 consecutive characters of it
	} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
	short := New("s3cret")
	if got, want := short.String("a S3CRET here, s3cre there"), "a "+Redacted+" here, s3cre there"; got != want {
		t.Errorf("a short secret: %q, want %q", got, want)
	}
	var none *Redactor
	if got := none.String("x"); got != "x" {
		t.Errorf("nil Redactor: %q", got)
	}
}

// TestRedactBeforeCut: a secret across the bound of a cut is hidden whole,
// because Safe redacts before it cuts.
func TestRedactBeforeCut(t *testing.T) {
	r := New(canary)
	text := strings.Repeat("a", 500) + canary + strings.Repeat("b", 100)
	got := r.Safe(text, 512)
	if strings.Contains(got, canary[:12]) || strings.Contains(got, canary[:8]) {
		t.Errorf("Safe holds part of the secret: %q", got[480:])
	}
	huge := strings.Repeat("b", 1<<20) + canary
	if got := r.Safe(huge, 64); !strings.HasSuffix(got, "… (1048610 bytes in all)") || len(got) > 128 {
		t.Errorf("Safe of a megabyte = %q", got)
	}
	naive := Text(Cut(text, 512)) // cut first: 12 characters of it survive
	if !strings.Contains(naive, canary[:12]) {
		t.Fatalf("the test cannot fail: the naive cut holds %q", naive[480:])
	}
}

// TestPrefix: the one redact-then-cut, for text and for bytes: a secret
// across the bound is hidden whole, a character is never cut in two, and
// cut says whether anything was left out.
func TestPrefix(t *testing.T) {
	t.Parallel()
	r := New(canary)
	tests := []struct {
		name, in string
		n        int
		want     string
		cut      bool
	}{
		{"short", "plain", 10, "plain", false},
		{"exactly n", "abcde", 5, "abcde", false},
		{"past n", "abcdef", 5, "abcde", true},
		{"a character across the bound", "abcdé", 5, "abcd", true},
		{"a secret across the bound", "aaaa" + canary + "bbb", 8, "aaaa<red", true},
		{"the secret hidden, the whole kept", "a" + canary, 16, "a" + Redacted, false},
		{"a megabyte", strings.Repeat("b", 1<<20), 4, "bbbb", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			got, cut := Prefix(r, tt.in, tt.n)
			if got != want || cut != tt.cut {
				t.Errorf("Prefix(%q, %d) = %q, %v; want %q, %v", tt.in, tt.n, got, cut, want, tt.cut)
			}
			gotB, cutB := Prefix(r, []byte(tt.in), tt.n)
			if string(gotB) != got || cutB != cut {
				t.Errorf("Prefix of bytes = %q, %v; of text %q, %v", gotB, cutB, got, cut)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"line\nVERDICT: CONFORMANT", `line\nVERDICT: CONFORMANT`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"c1 \u009b2J", `c1 \x9b2J`},
		{"raw c1 byte \x9b", `raw c1 byte \x9b`},
		{"rtl \u202eevil", `rtl \u202eevil`},
		{"isolate \u2066x\u2069", `isolate \u2066x\u2069`},
		{"del \x7f", `del \x7f`},
		{`a \x1b looks like an escape`, `a \x1b looks like an escape`},
		{"ok é 🌿", "ok é 🌿"},
		{"bad \xff\xfe", `bad \xff\xfe`},
		{"ls\u2028", `ls\u2028`},
	}
	for _, tt := range tests {
		got := Text(tt.in)
		if got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\x1b\x7f\u009b\u202e") {
			t.Errorf("Text(%q) = %q is not safe", tt.in, got)
		}
	}
}

func TestCut(t *testing.T) {
	if got, want := Cut("héllo", 2), "h… (6 bytes in all)"; got != want {
		t.Errorf("Cut = %q, want %q (no rune cut in two)", got, want)
	}
	if got := Cut("short", 10); got != "short" {
		t.Errorf("Cut = %q", got)
	}
}

// TestShortSecretsAndMarkers: a secret shorter than a window is found only
// as a token of its own, and a marker plantcheck wrote is never redacted
// again, whatever secret it happens to hold.
func TestShortSecretsAndMarkers(t *testing.T) {
	for _, tc := range []struct {
		name, secret, text, want string
	}{
		{"a 2-character token inside the marker", "ct", "Authorization: " + Redacted, "Authorization: " + Redacted},
		{"a 2-character token inside a word", "ct", "the request declares a content type", "the request declares a content type"},
		{"a 2-character token alone", "ct", `{"name":"ct"}`, `{"name":"` + Redacted + `"}`},
		{"a 2-character token in any case, after Bearer", "ct", "Bearer CT", "Bearer " + Redacted},
		{"a 2-character token JSON-escaped", "ct", `"\u0063t"`, `"` + Redacted + `"`},
		{"a short token beside punctuation", "ab12", "token=ab12&x=1", "token=" + Redacted + "&x=1"},
		{"a short token with a digit after it", "ab12", "ab123", "ab123"},
		{"a token that spells the marker", "redacted", "name: " + Redacted + " and redacted", "name: " + Redacted + " and " + Redacted},
		{"a token inside the token mark", "token", "?access_token=" + TokenMark, "?access_token=" + TokenMark},
		{"a token inside the credential mark", "credential", "Bearer " + CredentialMark, "Bearer " + CredentialMark},
		{"a token reaching past a marker is hidden whole", "ted>abcdefghijklmn", Redacted + "abcdefghijklmn", "<redac" + Redacted},
		{"a short token after an underscore", "token", "access_token=x", "access_token=x"},
		{"a long token keeps its windows", "abcdefghijklmnop", "xxabcdefghijklmnopxx", "xx" + Redacted + "xx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := New(tc.secret).String(tc.text); got != tc.want {
				t.Errorf("New(%q).String(%q) = %q, want %q", tc.secret, tc.text, got, tc.want)
			}
		})
	}
}

// Contains reports whether s holds a secret in any of its forms.
func (r *Redactor) Contains(s string) bool { return !r.Empty() && len(r.find(s)) > 0 }
