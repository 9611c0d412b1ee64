package evidence

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// findDefined is find by its definition, every window looked up as the
// string of its runes: the oracle of the quicker one.
func (r *Redactor) findDefined(s string) [][2]int {
	var spans [][2]int
	for _, enc := range r.encoded {
		for at := 0; ; {
			i := strings.Index(s[at:], enc)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{at + i, at + i + len(enc)})
			at += i + len(enc)
		}
	}
	var canon []rune
	var starts, ends []int
	for i := 0; i < len(s); {
		c, n := decodeOne(s[i:])
		canon = append(canon, unicode.ToLower(c))
		starts, ends = append(starts, i), append(ends, i+n)
		i += n
	}
	for i := range canon {
		if !r.firsts[canon[i]] {
			continue
		}
		for _, n := range r.lengths {
			if i+n > len(canon) || !r.windows[string(canon[i:i+n])] {
				continue
			}
			if r.short[n] && (i > 0 && wordRune(canon[i-1]) || i+n < len(canon) && wordRune(canon[i+n])) {
				continue
			}
			spans = append(spans, [2]int{starts[i], ends[i+n-1]})
			break
		}
	}
	spans = outsideMarkers(s, spans)
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

// TestFindAsDefined holds find to its definition on texts made of the
// secrets' pieces in every form (escaped, cased, cut), short secrets,
// lone surrogates, bytes that are not UTF-8, and letters that lower-case
// to ASCII (K, the Kelvin sign).
func TestFindAsDefined(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	secrets := [][]string{
		{"q3Zk-x9TbLm_Vw2hRf7sPaYdNc", "Q3ZK-X9TBLM_VW2HRF7SPAYDNC", "q3Zk-x9TbLm_Vw2hRf7sPaYdNX"},
		{"ab", "x", "kelvin-secret-42", "\xff\xfesecret\xffbytes"},
		{"é-tökén-ünïcödé-€𝄞", "s3cr3t"},
	}
	pieces := func(list []string) []string {
		out := []string{"x", "xx", "\\u00", "\\ud800", "\\ud834\\udd1e", "%4", "%41", "&#x4b;", "&#75;", "\u212a", "<redacted>", "<token>", " ", "_", "\xff", "é", "\\/", "\\\"", "Monstera deliciosa "}
		for _, s := range list {
			rs := []rune(s)
			for range 4 {
				a := rng.IntN(len(rs))
				b := a + rng.IntN(len(rs)-a) + 1
				p := string(rs[a:b])
				switch rng.IntN(5) {
				case 0:
					p = strings.ToUpper(p)
				case 1:
					var e strings.Builder
					for _, c := range p {
						if c < 128 && rng.IntN(2) == 0 {
							e.WriteString([]string{"\\u00", "%", "&#x"}[rng.IntN(3)])
							e.WriteString(strings.ToUpper(string("0123456789abcdef"[c>>4])) + string("0123456789abcdef"[c&15]))
							if e.Len() > 0 && strings.HasSuffix(e.String(), "&#x") {
								e.WriteString(";")
							}
							continue
						}
						e.WriteRune(c)
					}
					p = e.String()
				}
				out = append(out, p, s)
			}
		}
		return out
	}
	found := 0
	for _, list := range secrets {
		r := New(list...)
		ps := pieces(list)
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(ps[rng.IntN(len(ps))])
			}
			s := b.String()
			if got, want := r.find(s), r.findDefined(s); !slices.Equal(got, want) {
				t.Fatalf("find(%q) = %v, want %v", s, got, want)
			} else if len(got) > 0 {
				found++
			}
		}
	}
	// Plain ASCII texts (no escapes), which find reads byte by byte.
	plain := 0
	for _, list := range secrets {
		r := New(list...)
		var ps []string
		for _, p := range pieces(list) {
			if plainASCII(p) {
				ps = append(ps, p)
			}
		}
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(ps[rng.IntN(len(ps))])
			}
			s := b.String()
			if got, want := r.find(s), r.findDefined(s); !slices.Equal(got, want) {
				t.Fatalf("find(%q) = %v, want %v", s, got, want)
			} else if len(got) > 0 {
				plain++
			}
		}
	}
	if plain < 1000 {
		t.Errorf("secrets found in %d plain texts of 9,000: too few to hold find to its definition", plain)
	}
	if found < 1000 {
		t.Errorf("secrets found in %d texts of 9,000: too few to hold find to its definition", found)
	}
}

// TestFindAsDefinedLong holds find to its definition on longer texts, where
// it looks up only every few runes' gram: secrets of every length from 1
// to past a window (each length sets the gram's), periodic ones whose
// encoded forms overlap themselves, at every offset in filler, whole or
// cut, in any case, encoded, escaped, or one character off.
func TestFindAsDefinedLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	secrets := [][]string{
		{"q3Zk-x9TbLm_Vw2hRf7sPaYdNc", "Q3ZK-X9TBLM_VW2HRF7SPAYDNC", "q3Zk-x9TbLm_Vw2hRf7sPaYdNX", "q3Zk-x9TbLmVw2hRf7sPaYdNc"},
		{"abababababababab", "aaaaaaaaaaaaaaaaaaaa", "MonsteraDeliciosa"},
		{"x"}, {"ab1"}, {"s3cr3"}, {"plant7"}, {"Monstera"}, {"ab", "abcdefghij", "user:pa55w0rd"},
		{"é-tökén-ünïcödé-€𝄞-long", "\u212aelvin-signed-token"},
		{"ÜBER-ΣΊΓΜΑ-ЖУК-ÉTÉ-森林", "über-σίγμα"},
		{"\xff\xfesecret\xffbytes-and-more"},
	}
	fillers := []string{"Monstera deliciosa ", "xxxxxxxxxx", `{"id":12345,"name":"`, "aaaa", "abab", "_", "-", " ", "森", "\\u00e9", "%41", "&#x4b;", "\u212a", "ÜΣÉЖ", "üσéж", "森林"}
	forms := func(s string) []string {
		rs := []rune(s)
		a := rng.IntN(len(rs))
		b := a + rng.IntN(len(rs)-a) + 1
		off := []rune(s)
		off[rng.IntN(len(off))] = '#'
		var esc, lone strings.Builder
		for i, c := range s {
			if _, n := utf8.DecodeRuneInString(s[i:]); c == utf8.RuneError && n == 1 {
				// A byte that is not UTF-8 and a lone surrogate: both U+FFFD in a key.
				lone.WriteString([]string{`\ud800`, `\udfff`, "&#xd800;"}[rng.IntN(3)])
			} else {
				lone.WriteRune(c)
			}
			if c < 128 && rng.IntN(3) == 0 {
				fmt.Fprintf(&esc, `\u%04x`, c)
			} else {
				esc.WriteRune(c)
			}
		}
		k := rng.IntN(3)
		return []string{
			s, strings.ToUpper(s), strings.ToLower(s), string(rs[a:b]), lone.String(), strings.ToUpper(string(rs[a:b])), string(off), esc.String(),
			hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))),
			base64.StdEncoding.EncodeToString(append(make([]byte, k), s...)),
			base64.RawURLEncoding.EncodeToString(append([]byte("xy")[:k], s...)),
		}
	}
	found := map[bool]int{}
	for _, list := range secrets {
		r := New(list...)
		for range 400 {
			plain := rng.IntN(2) == 0
			var b strings.Builder
			for b.Len() < rng.IntN(3000) {
				f := fillers[rng.IntN(len(fillers))]
				if rng.IntN(3) == 0 {
					fs := forms(list[rng.IntN(len(list))])
					f = fs[rng.IntN(len(fs))]
				}
				if plain && !plainASCII(f) {
					continue
				}
				b.WriteString(f[:rng.IntN(len(f)+1)])
				b.WriteString(f)
			}
			s := b.String()
			if got, want := r.find(s), r.findDefined(s); !slices.Equal(got, want) {
				t.Fatalf("secrets %q: find(%q) = %v, want %v", list, s, got, want)
			} else if len(got) > 0 {
				found[plainASCII(s)]++
			}
		}
	}
	for _, plain := range []bool{true, false} {
		if found[plain] < 500 {
			t.Errorf("secrets found in %d texts (plain ASCII: %v): too few to hold find to its definition", found[plain], plain)
		}
	}
}

// FuzzFind holds find to its definition on any text, with the secrets of
// the benchmark and a short one.
func FuzzFind(f *testing.F) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	r := New(token, strings.ToUpper(token), token[:25]+"X", "ab")
	for _, s := range []string{"", token, "x" + hex.EncodeToString([]byte(token)), base64.StdEncoding.EncodeToString([]byte("x" + token)),
		`{"name":"ab"}`, "Monstera deliciosa " + strings.ToUpper(token[3:15]), `\u0071` + token[1:13], "<redacted>" + token[:12]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := r.find(s), r.findDefined(s); !slices.Equal(got, want) {
			t.Errorf("find(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestRunesAbout: the capacity canonical takes is the count of runes of
// UTF-8, and at most the count of bytes.
func TestRunesAbout(t *testing.T) {
	for _, s := range []string{"", "a", "森", "Monstera deliciosa 森林 ÜΣ 𝄞𝄞", strings.Repeat("é森𝄞a", 9), "\xff\x80\x80abc\xc3", "\x80\x80\x80\x80\x80\x80\x80\x80\x80"} {
		n := runesAbout(s)
		if utf8.ValidString(s) && n != utf8.RuneCountInString(s) || n > len(s) || n < 0 {
			t.Errorf("runesAbout(%q) = %d, want %d runes (%d bytes)", s, n, utf8.RuneCountInString(s), len(s))
		}
	}
}
