package generate

import (
	"bytes"
	_ "embed"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The catalog of hostile strings: strings that real servers, their JSON
// libraries and their storage are known to mangle. The suite sends them as
// a plant's name and tag and requires the very string back.

//go:embed naughty/blns.txt
var blns []byte

// Category is one category of the catalog.
type Category struct {
	Name string
	// Source is "blns" (the Big List of Naughty Strings) or "plantcheck".
	Source string
	// Why says what real servers do to these strings.
	Why string
	// Fixed are sent in every run, whatever the seed: chosen to be changed
	// by the narrowest mangling of the class that real servers do, so that
	// no draw lets such a server through. A Big List of Naughty Strings
	// category's is its first string.
	Fixed []string
	// Strings are the ones the seed draws from.
	Strings []string
}

// Sent returns the strings a run sends of c: its fixed strings, then the
// one draw picks of Strings (draw returns an index below its argument),
// left out when it repeats a fixed one; with all, every string of c, the
// fixed ones first, each once. draw is called once whether or not its pick
// is sent, so that the rest of a scenario's draws do not depend on it.
func (c Category) Sent(draw func(n int) int, all bool) []string {
	pick := c.Strings
	if !all {
		i := draw(len(pick))
		pick = pick[i : i+1]
	}
	out := slices.Clone(c.Fixed)
	for _, s := range pick {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Catalog returns every category: the Big List of Naughty Strings' in the
// order of its file, then plantcheck's own. It is read once.
var Catalog = sync.OnceValue(func() []Category {
	return append(parseBLNS(blns), ownCategories()...)
})

// parseBLNS reads blns.txt: a category is a comment line followed by an
// empty comment line ("#"), then comment lines that describe it; its
// strings are the non-empty lines that follow, byte for byte. A string that
// is not UTF-8 could not travel in a JSON body; the file has none.
func parseBLNS(b []byte) []Category {
	lines := bytes.Split(b, []byte("\n"))
	var out []Category
	var cur *Category
	for i, l := range lines {
		if text, ok := bytes.CutPrefix(l, []byte("#")); ok {
			t := strings.TrimSpace(string(text))
			switch {
			case t != "" && i+1 < len(lines) && string(bytes.TrimSpace(lines[i+1])) == "#":
				out = append(out, Category{Name: t, Source: "blns"})
				cur = &out[len(out)-1]
			case t != "" && cur != nil && (cur.Why == "" || len(cur.Strings) == 0 && !strings.HasSuffix(cur.Why, ".")):
				// A description may run over several comment lines.
				cur.Why = strings.TrimSpace(cur.Why + " " + t)
			}
			continue
		}
		if len(l) == 0 || cur == nil || !utf8.Valid(l) {
			continue
		}
		cur.Strings = append(cur.Strings, string(l))
	}
	out = slices.DeleteFunc(out, func(c Category) bool { return len(c.Strings) == 0 })
	for i := range out {
		out[i].Fixed = out[i].Strings[:1:1]
	}
	return out
}

// ownCategories are plantcheck's, each for a mangling that real servers do
// and that the Big List of Naughty Strings does not single out. Each is
// pure: every string of it is changed by the mangling its Why names, so
// whichever string the seed draws, a server that mangles so is found. A
// server that mangles only some of the class (trims the right end alone,
// composes a handful of accented letters) is found by Fixed, which every
// run sends: each fixed string is chosen to be changed by the narrowest
// such manglings real servers do, named beside it (a test checks each).
func ownCategories() []Category {
	own := []Category{
		{Name: "JSON number and literal texts", Why: "loosely typed stores (YAML, JavaScript, PHP) turn them into numbers, booleans or null",
			// Digits alone, which every number-reading store takes (PHP's
			// JSON_NUMERIC_CHECK, a /^\d+$/ type guess); null and true, which
			// code that leaves numbers alone still reads as literals (a
			// YAML 1.1 or "true"/"false" boolean guess).
			Fixed:   []string{"42", "null", "true"},
			Strings: []string{"42", "-0", "1e3", "3.14", "-17", "1E+02", "0", "true", "false", "null"}},
		{Name: "Number look-alikes of other syntaxes", Why: "YAML, JavaScript and strtol read them as numbers (0x1F is 31, 007 is 7)",
			// A leading zero: strtol, JavaScript's Number, YAML 1.1, PHP's
			// is_numeric and a numeric column (a zip code's lost zero) all
			// read 7.
			Fixed:   []string{"007"},
			Strings: []string{"0x1F", "007", "0o17", "1_000", ".5", "+5", "NaN", "Infinity"}},
		{Name: "HTML special characters", Why: "HTML-escaping templates and sanitisers write them as &lt; &gt; &amp; &#39; &#34;",
			// A tag, for strip_tags; each of the five characters, for an
			// escaper of any one of them (< and > alone, no quotes).
			Fixed:   []string{`<b>"Fern" & 'Moss'</b>`},
			Strings: []string{"<b>Fern</b>", "Fern & Moss", "a < b > c", `"Fern" <&> 'Moss'`, "&amp; already escaped"}},
		{Name: "Edge spaces", Why: "trim() on input takes spaces from the edges",
			// Both ends: a right trim alone (a CHAR column, rtrim) and a
			// left trim alone change it too.
			Fixed:   []string{"  both  "},
			Strings: []string{" leading space", "trailing space ", "  both  ", " \tspace and tab", "no-break and space\u00a0 "}},
		{Name: "Edge white space other than the space", Why: "TrimSpace, strip() and trim() also take tabs, line breaks and Unicode spaces from the edges",
			// A tab first, for trims of ASCII white space alone (PHP's trim,
			// Java's String.trim); a line feed last, for chomp (Ruby, Perl)
			// and a value read as a line.
			Fixed:   []string{"\tline feed last\n"},
			Strings: []string{"\ttabbed\t", "\nnew line first", "last line\n", "\u00a0no-break space\u00a0", "\u3000ideographic space", "\u2003em space\u2003"}},
		{Name: "Inner white space", Why: "white space collapsed (strings.Fields, normalize-space, squish) changes runs of spaces, tabs and line breaks inside",
			// Two spaces, for a replace of double spaces alone; a tab, for
			// tabs turned into spaces (a tab-separated export).
			Fixed:   []string{"two  spaces and a\ttab"},
			Strings: []string{"two  spaces", "tab\tinside", "a \t b", "three   spaces and\ttab"}},
		{Name: "Zero-width and invisible characters", Why: "sanitisers strip zero-width spaces, joiners, soft hyphens and stray byte order marks",
			// Each of them, the byte order mark first: a stripper of any one
			// (the common [\u200B-\u200D\uFEFF], a leading BOM alone, soft
			// hyphens for search) changes it.
			Fixed:   []string{"\ufeffBOM, zero\u200bwidth, non\u200cjoiner, word\u2060joiner, soft\u00adhyphen"},
			Strings: []string{"zero\u200bwidth", "\ufeffbyte order mark", "soft\u00adhyphen", "word\u2060joiner", "non\u200cjoiner"}},
		{Name: "NUL", Why: "stores that cannot hold NUL (PostgreSQL text, C strings) strip it or cut the string there",
			// Inside and last: a C string cuts it to "nul", a stripper to
			// "nulinside", PHP's trim (which takes NUL at the edges) drops
			// the last.
			Fixed:   []string{"nul\u0000inside\u0000"},
			Strings: []string{"nul\u0000inside", "\u0000", "\u0000leading", "trailing\u0000"}},
		{Name: "Control characters", Why: "sanitisers strip control characters",
			// Each kind: BEL for the XML 1.0 cleaners (which keep DEL), an
			// ANSI colour for the terminal-escape strippers, DEL, vertical
			// tab and form feed for code that counts them as white space.
			Fixed:   []string{"bell\u0007 escape\u001b[0m del\u007f vertical\u000btab form\u000cfeed \u0001\u001f"},
			Strings: []string{"bell\u0007", "escape\u001b[0m", "del\u007f", "\u0001\u001f", "vertical\u000btab", "form\u000cfeed"}},
		{Name: "JSON escapes and backslashes", Why: "JSON written by string concatenation or Sprintf leaves quotes and backslashes unescaped",
			// A quote and backslashes: an escaper of the quote alone leaves
			// \s invalid and \u0041 read as A, and stripslashes or addslashes
			// change them; control characters, which an escaper of the quote
			// and the backslash alone writes raw.
			Fixed:   []string{`"quote" and back\slash \u0041`, "\b\f\n\r\t"},
			Strings: []string{`back\slash`, `\\double`, `\u0041 as text`, `slash/and\/`, `quote"inside`, `\n not a newline`, "\b\f\n\r\t"}},
		{Name: "Carriage returns", Why: "newline normalisation turns CR LF and CR into LF",
			// CR LF inside, a lone CR, CR LF last: a replace of CR LF alone,
			// a strip of CR and chomp each change it.
			Fixed:   []string{"crlf\r\nline, cr\ronly, trailing\r\n"},
			Strings: []string{"crlf\r\nline", "cr\ronly", "trailing\r\n", "two\r\n\r\nlines"}},
		{Name: "Line feeds", Why: "newline normalisation turns LF into CR LF, or a template into <br>",
			// A blank line: LF to CR LF, nl2br and a collapse of blank lines
			// alone change it.
			Fixed:   []string{"two\n\nlines"},
			Strings: []string{"lf\nonly", "two\n\nlines", "a\nb\nc"}},
		{Name: "Unicode line separators", Why: "U+2028 and U+2029 break JavaScript that evals JSON, and line-based code splits on them and NEL",
			// All three: the JavaScript fix that removes U+2028 and U+2029
			// alone, and line splitting that knows NEL alone, change it.
			Fixed:   []string{"line\u2028paragraph\u2029next\u0085line"},
			Strings: []string{"\u2028line separator", "\u2029paragraph separator", "next\u0085line"}},
		{Name: "Characters beyond the BMP", Why: "MySQL utf8mb3 stores 4-byte characters as '?'; code that counts UTF-16 units cuts their pairs",
			// An emoji: a filter of emoji alone (kept out of a utf8mb3
			// column) changes it, as utf8mb3 does.
			Fixed:   []string{"cactus \U0001f335"},
			Strings: []string{"🌵", "𝔉𝔢𝔯𝔫", "𠜎𠜱", "👩\u200d🌾 gardener", "🏳️\u200d🌈"}},
		{Name: "Decomposed characters", Why: "NFC normalisation on input composes them (e and U+0301 become é)",
			// The common accented Latin letters, é à ö ü ñ ç Å, each as its
			// letter and combining mark: a hand-written table of them alone
			// composes them. A Hangul syllable as conjoining jamo (composed
			// by Korean-only fixes), and a letter with two marks out of
			// canonical order (reordered by NFD and NFC alike).
			Fixed: []string{"e\u0301 a\u0300 o\u0308 u\u0308 n\u0303 c\u0327 A\u030a",
				"\u1112\u1161\u11ab a\u0301\u0323"},
			Strings: []string{"e\u0301", "A\u030a ring", "n\u0303o", "\u2126 ohm sign", "\u212b angstrom sign"}},
		{Name: "Precomposed characters", Why: "NFD normalisation (macOS file names, some stores) decomposes them",
			// The same letters precomposed and a Hangul syllable: accent
			// stripping (unaccent, slugify, iconv's //TRANSLIT) and a
			// decomposition of Hangul alone change it, as NFD does.
			Fixed:   []string{"\u00e9 \u00e0 \u00f6 \u00fc \u00f1 \u00e7 \u00c5 \ud55c"},
			Strings: []string{"\u00e9t\u00e9", "\u00c5ngstr\u00f6m", "ma\u00f1ana", "\u1e9b\u0323"}},
		{Name: "Compatibility characters", Why: "NFKC normalisation folds them to plain letters and digits",
			// Full-width letters (folded alone by Japanese input
			// normalisation: PHP's mb_convert_kana), a ligature (by text
			// extraction), a superscript, a fraction, a circled digit.
			Fixed:   []string{"\uff26\uff45\uff52\uff4e \ufb01 x\u00b2 \u00bd \u2460"},
			Strings: []string{"\ufb01 ligature", "\u2460 circled", "\uff26\uff45\uff52\uff4e fullwidth", "x\u00b2", "\u00bd"}},
		{Name: "Letter case", Why: "names and tags lower-cased, upper-cased or case-folded for lookup",
			// A lower-case letter first, for capitalisation (ucfirst,
			// Django's capfirst, title case); capitals, for lower-casing;
			// all ASCII, for case mappings of ASCII alone (PHP 8.2's
			// strtolower).
			Fixed:   []string{"fern MOSS"},
			Strings: []string{"MiXeD CaSe", "İstanbul", "\u01c5 titlecase", "Fern Moss", "Σίσυφος"}},
		{Name: "Length", Why: "VARCHAR(255) or (1000), byte-length limits and 4 KiB buffers cut long strings",
			// 4,097 characters in 8,194 bytes: past the character limits
			// (255, 1,000, 4,000, 4,096) and the byte limits of 4 and 8 KiB
			// alike, where 4,097 c pass an 8 KiB limit.
			Fixed:   []string{strings.Repeat("é", 4097)},
			Strings: []string{strings.Repeat("c", 4097), strings.Repeat("é", 4097), strings.Repeat("ab", 5000)}},
	}
	for i := range own {
		own[i].Source = "plantcheck"
	}
	return own
}
