// Package evidence makes what a target sent safe to keep and to show: the
// user's secrets hidden in every form a server may echo them, every string
// escaped so that it prints as text and never as a terminal command, and
// every piece cut to a bound, after it is redacted, with its size said.
// Everything a target sends is hostile until shown otherwise.
package evidence

import (
	"encoding/base64"
	"encoding/hex"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Redacted stands for a secret wherever a target echoed it.
const Redacted = "<redacted>"

// TokenMark stands for the user's token where a request carried it outside
// its Authorization header.
const TokenMark = "<token>"

// markers are what evidence writes in place of a secret, never redacted
// again (a token "red" would garble them).
var markers = []string{Redacted, TokenMark, CredentialMark}

// CredentialMark stands for a credential a report describes without
// showing (an Authorization header's, after its scheme).
const CredentialMark = "<credential>"

// window is how many consecutive characters of a secret are hidden as it.
const window = 12

// Redactor hides secrets in text that may quote a target, found in any
// letter case; through JSON, URL and HTML escapes; by any 12 consecutive
// characters (a shorter secret only whole, as a word of its own); in
// base64 and base64url at any alignment; in hexadecimal. It is safe for
// concurrent use.
type Redactor struct {
	// windows are the lower-cased runs of window runes (or whole short
	// secrets) to find in the canonical text; firsts their first runes.
	windows     map[string]bool
	firsts      map[rune]bool
	lengths     []int                 // the rune lengths of windows, longest first
	asciiFirsts [utf8.RuneSelf]bool   // firsts, read without a map
	pairs       [pairBits / 64]uint64 // a bit for each window's first two runes
	short       map[int]bool          // rune lengths of secrets shorter than window
	encoded     []string              // base64 and hex forms, found byte for byte
	longest     int                   // bytes of the longest secret
	// A window found covers one of every gram-th position with gram runes
	// of itself, so a scan looks up only those grams (grams holds every
	// window's) and checks in full only near a hit; encGrams is the same
	// for the encoded forms, each at least encGram bytes long.
	gram     int
	grams    gramFilter
	encGrams gramFilter
	// encOrder lists the encoded forms' indexes by their first byte, those
	// that begin with c from encFirst[c] to encFirst[c+1].
	encOrder []int
	encFirst [257]int
}

// encGram is the length of the grams of encoded forms looked up, half the
// shortest form's (window).
const encGram = window / 2

// gramFilter holds a bit for the hash of each gram; a bit set may stand
// for another gram too, so a hit is checked in full.
type gramFilter [gramBits / 64]uint64

// gramBits is the size of a gramFilter, in bits: a hash's top gramLog.
const (
	gramLog  = 15
	gramBits = 1 << gramLog
)

func (f *gramFilter) add(h uint64) { b := h >> (64 - gramLog); f[b/64] |= 1 << (b % 64) }

func (f *gramFilter) has(h uint64) bool { b := h >> (64 - gramLog); return f[b/64]&(1<<(b%64)) != 0 }

// gramHash adds the j-th rune (or byte) of a gram to its hash halves a
// and b; gramSum ends it. No rune waits on the hash of the one before,
// as it would in a chain of multiplications.
func gramHash(a, b *uint64, j int, c rune) {
	if j < 3 {
		*a |= uint64(c) << (21 * j)
	} else {
		*b |= uint64(c) << (21 * (j - 3))
	}
}

func gramSum(a, b uint64) uint64 { return a*0x9E3779B97F4A7C15 + b*0xC2B2AE3D27D4EB4F }

// Margin is how far past a cut text must be redacted for a secret across
// it to be found: the longest secret, each character a 12-byte escape.
func (r *Redactor) Margin() int {
	if r == nil {
		return 0
	}
	return 12*r.longest + 16
}

// New returns a Redactor for the secrets; empty ones are ignored.
func New(secrets ...string) *Redactor {
	r := &Redactor{windows: map[string]bool{}, firsts: map[rune]bool{}, short: map[int]bool{}}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		r.longest = max(r.longest, len(s))
		low := []rune(strings.ToLower(s))
		n := min(window, len(low))
		if n < window {
			r.short[n] = true
		}
		for i := 0; i+n <= len(low); i++ {
			key := string(low[i : i+n])
			r.windows[key] = true
			r.firsts[low[i]] = true
			if low[i] < utf8.RuneSelf {
				r.asciiFirsts[low[i]] = true
			}
			if first, size := utf8.DecodeRuneInString(key); size < len(key) {
				second, _ := utf8.DecodeRuneInString(key[size:])
				bit := pairBit(first, second)
				r.pairs[bit/64] |= 1 << (bit % 64)
			}
		}
		if !slices.Contains(r.lengths, n) {
			r.lengths = append(r.lengths, n)
		}
		if h := hex.EncodeToString([]byte(s)); len(h) >= window {
			r.encoded = append(r.encoded, h, strings.ToUpper(h))
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			for _, core := range base64Cores(enc, s) {
				if len(core) >= window && !slices.Contains(r.encoded, core) {
					r.encoded = append(r.encoded, core)
				}
			}
		}
	}
	slices.SortFunc(r.lengths, func(a, b int) int { return b - a })
	slices.SortFunc(r.encoded, func(a, b string) int { return len(b) - len(a) })
	// Every window of n runes holds a whole gram at a multiple of the
	// gram's length when that is at most (n+1)/2.
	r.gram = encGram
	for _, n := range r.lengths {
		r.gram = min(r.gram, (n+1)/2)
	}
	// A secret's grams are its windows' (each window's runes are the
	// secret's, invalid bytes already U+FFFD).
	for _, s := range secrets {
		low := []rune(strings.ToLower(s))
		for i := 0; i+r.gram <= len(low); i++ {
			var a, b uint64
			for j, c := range low[i : i+r.gram] {
				gramHash(&a, &b, j, c)
			}
			r.grams.add(gramSum(a, b))
		}
	}
	r.encOrder = make([]int, 0, len(r.encoded))
	for k, enc := range r.encoded {
		for i := 0; i+encGram <= len(enc); i++ {
			if i+8 <= len(enc) {
				r.encGrams.add(wordHash(load8(enc, i), encGram))
			} else {
				r.encGrams.add(hashBytes(enc[i : i+encGram]))
			}
		}
		r.encOrder = append(r.encOrder, k)
		r.encFirst[int(enc[0])+1]++
	}
	slices.SortStableFunc(r.encOrder, func(a, b int) int { return int(r.encoded[a][0]) - int(r.encoded[b][0]) })
	for c := range 256 {
		r.encFirst[c+1] += r.encFirst[c]
	}
	return r
}

// hashBytes is the hash of a gram of bytes.
func hashBytes(s string) uint64 {
	var a, b uint64
	for j := 0; j < len(s); j++ {
		gramHash(&a, &b, j, rune(s[j]))
	}
	return gramSum(a, b)
}

// load8 reads the eight bytes of s from i, the first the lowest.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// wordHash is hashBytes of the first g bytes (g at most 6) of the word w,
// read by load8.
func wordHash(w uint64, g int) uint64 {
	w &= 1<<(8*g) - 1
	a := w&0xff | (w>>8&0xff)<<21 | (w>>16&0xff)<<42
	b := w>>24&0xff | (w>>32&0xff)<<21 | (w>>40&0xff)<<42
	return gramSum(a, b)
}

// lowerASCII lower-cases the letters of a word of ASCII bytes.
func lowerASCII(w uint64) uint64 {
	const ones = 0x0101010101010101
	upper := (w + 0x3f*ones) &^ (w + 0x25*ones) & (0x80 * ones) // 'A' to 'Z'
	return w | upper>>2
}

// base64Cores returns, for each of s's three alignments in a longer text,
// the part of the encoding that depends on s alone.
func base64Cores(enc *base64.Encoding, s string) []string {
	var out []string
	for k := 0; k < 3; k++ {
		full := enc.EncodeToString(append(make([]byte, k), s...))
		first := (8*k + 5) / 6       // the first character made of s's bits only
		last := 8 * (k + len(s)) / 6 // one past the last such character
		if first < last && last <= len(full) {
			out = append(out, full[first:last])
		}
	}
	return out
}

// Empty reports whether the Redactor hides nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.windows) == 0 }

// String returns s with every secret hidden.
func (r *Redactor) String(s string) string {
	if r.Empty() || s == "" {
		return s
	}
	spans := r.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(s[at:sp[0]])
		b.WriteString(Redacted)
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// find returns the byte spans of s to hide, in order and merged.
func (r *Redactor) find(s string) [][2]int {
	spans := r.indexEncoded(s, nil)
	if plainASCII(s) {
		spans = findIn(r, s, []byte(s), nil, spans)
	} else {
		canon, starts := canonical(s)
		spans = findIn(r, s, canon, starts, spans)
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

// plainASCII reports whether s is ASCII that begins no escape.
func plainASCII(s string) bool {
	if strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, '&') >= 0 {
		return false
	}
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time, their top bits
		if load8(s, i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// findIn appends to spans the windows found in text (s's bytes, or its
// canonical runes, starts giving where each begins in s).
func findIn[T byte | rune](r *Redactor, s string, text []T, starts []int, spans [][2]int) [][2]int {
	at := func(i int) rune {
		c := rune(text[i])
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	var key [utf8.UTFMax * window]byte
	// check appends the window at i, if one is there.
	check := func(i int, spans [][2]int) [][2]int {
		c := at(i)
		if c < utf8.RuneSelf && !r.asciiFirsts[c] || c >= utf8.RuneSelf && !r.firsts[c] {
			return spans
		}
		// The first two runes, as a key writes them.
		pair := false
		if i+1 < len(text) {
			second := at(i + 1)
			if !utf8.ValidRune(second) {
				second = utf8.RuneError
			}
			bit := pairBit(c, second)
			pair = r.pairs[bit/64]&(1<<(bit%64)) != 0
		}
		for _, n := range r.lengths {
			if i+n > len(text) || n > 1 && !pair {
				continue
			}
			// Into a buffer the lookup does not keep.
			k := key[:0]
			for j := i; j < i+n; j++ {
				k = utf8.AppendRune(k, at(j))
			}
			if !r.windows[string(k)] {
				continue
			}
			if r.short[n] && (i > 0 && wordRune(at(i-1)) || i+n < len(text) && wordRune(at(i+n))) {
				continue // a short secret inside a longer word: not it
			}
			from, end := i, i+n
			if starts != nil {
				from, end = starts[i], len(s) // where the window's last rune ends
				if i+n < len(starts) {
					end = starts[i+n]
				}
			}
			return append(spans, [2]int{from, end})
		}
		return spans
	}
	// A window at i holds the gram at the multiple q of g in [i, i+n-g]:
	// only at a q whose gram some window holds can one begin, at i from
	// q+g-n to q. Each i is checked once, in order.
	g, reach, next := r.gram, r.lengths[0], 0
	for q := 0; q+g <= len(text); q += g {
		var h uint64
		if starts == nil && q+8 <= len(s) { // text is s, ASCII: a word at a time
			h = wordHash(lowerASCII(load8(s, q)), g)
		} else {
			var a, b uint64
			for j := range g {
				c := at(q + j)
				if !utf8.ValidRune(c) {
					c = utf8.RuneError // as a key writes it
				}
				gramHash(&a, &b, j, c)
			}
			h = gramSum(a, b)
		}
		if !r.grams.has(h) {
			continue
		}
		for i := max(next, q+g-reach); i <= q; i++ {
			spans = check(i, spans)
		}
		next = q + 1
	}
	return spans
}

// indexEncoded appends to spans every occurrence in s of each encoded
// form, each form's found left to right and apart, as indexAll finds them.
func (r *Redactor) indexEncoded(s string, spans [][2]int) [][2]int {
	if len(r.encoded) == 0 {
		return spans
	}
	var ends []int // where each form's last occurrence ends
	reach, next := len(r.encoded[0]), 0
	for q := 0; q+encGram <= len(s); q += encGram {
		var h uint64
		if q+8 <= len(s) {
			h = wordHash(load8(s, q), encGram)
		} else {
			h = hashBytes(s[q : q+encGram])
		}
		if !r.encGrams.has(h) {
			continue
		}
		if ends == nil {
			ends = make([]int, len(r.encoded))
		}
		for i := max(next, q+encGram-reach); i <= q; i++ {
			c := s[i]
			for _, k := range r.encOrder[r.encFirst[c]:r.encFirst[int(c)+1]] {
				if enc := r.encoded[k]; i >= ends[k] && strings.HasPrefix(s[i:], enc) {
					spans = append(spans, [2]int{i, i + len(enc)})
					ends[k] = i + len(enc)
				}
			}
		}
		next = q + 1
	}
	return spans
}

// pairBits is the size of Redactor.pairs, in bits.
const pairBits = 1 << 12

// pairBit is the bit of Redactor.pairs that stands for two runes.
func pairBit(first, second rune) uint32 {
	return (uint32(first)*0x9E3779B1 ^ uint32(second)*0x85EBCA77) >> 7 % pairBits
}

// wordRune reports whether r, next to a short secret, makes it a word.
func wordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// outsideMarkers drops the spans wholly inside a marker.
func outsideMarkers(s string, spans [][2]int) [][2]int {
	if len(spans) == 0 {
		return spans // nothing to drop: the text is not searched for markers
	}
	in := indexAll(s, markers, nil)
	if len(in) == 0 {
		return spans
	}
	return slices.DeleteFunc(spans, func(sp [2]int) bool {
		return slices.ContainsFunc(in, func(m [2]int) bool { return m[0] <= sp[0] && sp[1] <= m[1] })
	})
}

// indexAll appends to spans every occurrence of each of subs in s.
func indexAll(s string, subs []string, spans [][2]int) [][2]int {
	for _, sub := range subs {
		for at := 0; ; {
			i := strings.Index(s[at:], sub)
			if i < 0 {
				break
			}
			spans = append(spans, [2]int{at + i, at + i + len(sub)})
			at += i + len(sub)
		}
	}
	return spans
}

// canonical reads s as the runes it stands for, escapes decoded, letters
// lower-cased; starts gives where each rune's bytes begin in s.
func canonical(s string) (runes []rune, starts []int) {
	n := runesAbout(s)
	runes, starts = make([]rune, 0, n), make([]int, 0, n)
	// lower remembers unicode.ToLower of recent runes: a text repeats its
	// script's letters, and the tables are searched each time.
	var lower [64]struct{ r, low rune }
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf && c != '\\' && c != '%' && c != '&' {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			runes = append(runes, rune(c))
			starts = append(starts, i)
			i++
			continue
		}
		var r rune
		var n int
		if c < utf8.RuneSelf {
			r, n = decodeOne(s[i:])
		} else {
			r, n = utf8.DecodeRuneInString(s[i:]) // as decodeOne would: no escape begins so
		}
		if m := &lower[uint32(r)%64]; m.r == r {
			r = m.low
		} else {
			m.r, m.low = r, unicode.ToLower(r)
			r = m.low
		}
		runes = append(runes, r)
		starts = append(starts, i)
		i += n
	}
	return runes, starts
}

// runesAbout is how many runes s has when it is UTF-8 (each byte that is
// not, one more), counted a word at a time: its bytes less those that
// continue a rune.
func runesAbout(s string) int {
	n, i := len(s), 0
	for ; i+8 <= len(s); i += 8 {
		w := load8(s, i)
		n -= bits.OnesCount64(w &^ (w << 1) & 0x8080808080808080) // 10xxxxxx
	}
	for ; i < len(s); i++ {
		if s[i]&0xc0 == 0x80 {
			n--
		}
	}
	return n
}

// decodeOne reads the rune at the start of s and the bytes it takes.
func decodeOne(s string) (rune, int) {
	switch {
	case strings.HasPrefix(s, `\u`) && len(s) >= 6:
		if u, err := strconv.ParseUint(s[2:6], 16, 16); err == nil {
			r := rune(u)
			if utf16.IsSurrogate(r) && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if lo, err := strconv.ParseUint(s[8:12], 16, 16); err == nil {
					if pair := utf16.DecodeRune(r, rune(lo)); pair != unicode.ReplacementChar {
						return pair, 12
					}
				}
			}
			return r, 6
		}
	case strings.HasPrefix(s, `\`) && len(s) >= 2 && strings.IndexByte(`/"\'`, s[1]) >= 0:
		return rune(s[1]), 2
	case s[0] == '%' && len(s) >= 3:
		if u, err := strconv.ParseUint(s[1:3], 16, 8); err == nil && u < utf8.RuneSelf {
			return rune(u), 3
		}
	case strings.HasPrefix(s, "&#"):
		if end := strings.IndexByte(s, ';'); end > 2 && end <= 10 {
			num, base := s[2:end], 10
			if num[0] == 'x' || num[0] == 'X' {
				num, base = num[1:], 16
			}
			if u, err := strconv.ParseUint(num, base, 32); err == nil && u <= unicode.MaxRune {
				return rune(u), end + 1
			}
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n
}

// maxSecrets bounds the distinct secrets a Set remembers; an exchange's own
// are always hidden in its evidence.
const maxSecrets = 256

// Set is a set of secrets that may grow, its Redactor built once a change.
// Its zero value is empty; it is safe for concurrent use.
type Set struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
	red  *Redactor // of list, built when first needed
}

// NewSet returns the set of secrets.
func NewSet(secrets ...string) *Set {
	s := &Set{}
	s.Add(secrets...)
	return s
}

// Add remembers secrets (empty ones ignored), up to maxSecrets in all.
func (s *Set) Add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range secrets {
		if v == "" || s.seen[v] || len(s.list) >= maxSecrets {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[v] = true
		s.list = append(s.list, v)
		s.red = nil
	}
}

// Redactor hides every secret of the set and of extra (one exchange's own).
func (s *Set) Redactor(extra []string) *Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.ContainsFunc(extra, func(v string) bool { return v != "" && !s.seen[v] }) {
		return New(append(slices.Clone(s.list), extra...)...)
	}
	if s.red == nil {
		s.red = New(s.list...)
	}
	return s.red
}
