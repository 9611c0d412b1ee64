package evidence

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
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
