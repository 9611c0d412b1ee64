package generate

import (
	"bytes"
	_ "embed"
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
	Why     string
	Strings []string
}

// Catalog returns every category: the Big List of Naughty Strings' in the
// order of its file, then plantcheck's own. It is read once.
func Catalog() []Category { return catalog() }

var catalog = sync.OnceValue(func() []Category {
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
	var kept []Category
	for _, c := range out {
		if len(c.Strings) > 0 {
			kept = append(kept, c)
		}
	}
	return kept
}

// ownCategories are plantcheck's, each for a mangling that real servers do
// and that the Big List of Naughty Strings does not single out. Each is
// pure: every string of it is changed by the mangling its Why names, so
// whichever string the seed draws, a server that mangles so is found.
func ownCategories() []Category {
	own := []Category{
		{Name: "JSON number and literal texts", Why: "loosely typed stores (YAML, JavaScript, PHP) turn them into numbers, booleans or null",
			Strings: []string{"42", "-0", "1e3", "3.14", "-17", "1E+02", "0", "true", "false", "null"}},
		{Name: "Number look-alikes of other syntaxes", Why: "YAML, JavaScript and strtol read them as numbers (0x1F is 31, 007 is 7)",
			Strings: []string{"0x1F", "007", "0o17", "1_000", ".5", "+5", "NaN", "Infinity"}},
		{Name: "HTML special characters", Why: "HTML-escaping templates and sanitisers write them as &lt; &gt; &amp; &#39; &#34;",
			Strings: []string{"<b>Fern</b>", "Fern & Moss", "a < b > c", `"Fern" <&> 'Moss'`, "&amp; already escaped"}},
		{Name: "Edge spaces", Why: "trim() on input takes spaces from the edges",
			Strings: []string{" leading space", "trailing space ", "  both  ", " \tspace and tab", "no-break and space\u00a0 "}},
		{Name: "Edge white space other than the space", Why: "TrimSpace, strip() and trim() also take tabs, line breaks and Unicode spaces from the edges",
			Strings: []string{"\ttabbed\t", "\nnew line first", "last line\n", "\u00a0no-break space\u00a0", "\u3000ideographic space", "\u2003em space\u2003"}},
		{Name: "Inner white space", Why: "white space collapsed (strings.Fields, normalize-space, squish) changes runs of spaces, tabs and line breaks inside",
			Strings: []string{"two  spaces", "tab\tinside", "a \t b", "three   spaces and\ttab"}},
		{Name: "Zero-width and invisible characters", Why: "sanitisers strip zero-width spaces, joiners, soft hyphens and stray byte order marks",
			Strings: []string{"zero\u200bwidth", "\ufeffbyte order mark", "soft\u00adhyphen", "word\u2060joiner", "non\u200cjoiner"}},
		{Name: "NUL", Why: "stores that cannot hold NUL (PostgreSQL text, C strings) strip it or cut the string there",
			Strings: []string{"nul\u0000inside", "\u0000", "\u0000leading", "trailing\u0000"}},
		{Name: "Control characters", Why: "sanitisers strip control characters",
			Strings: []string{"bell\u0007", "escape\u001b[0m", "del\u007f", "\u0001\u001f", "vertical\u000btab", "form\u000cfeed"}},
		{Name: "JSON escapes and backslashes", Why: "JSON written by string concatenation or Sprintf leaves quotes and backslashes unescaped",
			Strings: []string{`back\slash`, `\\double`, `\u0041 as text`, `slash/and\/`, `quote"inside`, `\n not a newline`, "\b\f\n\r\t"}},
		{Name: "Carriage returns", Why: "newline normalisation turns CR LF and CR into LF",
			Strings: []string{"crlf\r\nline", "cr\ronly", "trailing\r\n", "two\r\n\r\nlines"}},
		{Name: "Line feeds", Why: "newline normalisation turns LF into CR LF, or a template into <br>",
			Strings: []string{"lf\nonly", "two\n\nlines", "a\nb\nc"}},
		{Name: "Unicode line separators", Why: "U+2028 and U+2029 break JavaScript that evals JSON, and line-based code splits on them and NEL",
			Strings: []string{"\u2028line separator", "\u2029paragraph separator", "next\u0085line"}},
		{Name: "Characters beyond the BMP", Why: "MySQL utf8mb3 stores 4-byte characters as '?'; code that counts UTF-16 units cuts their pairs",
			Strings: []string{"🌵", "𝔉𝔢𝔯𝔫", "𠜎𠜱", "👩\u200d🌾 gardener", "🏳️\u200d🌈"}},
		{Name: "Decomposed characters", Why: "NFC normalisation on input composes them (e and U+0301 become é)",
			Strings: []string{"e\u0301", "A\u030a ring", "n\u0303o", "\u2126 ohm sign", "\u212b angstrom sign"}},
		{Name: "Precomposed characters", Why: "NFD normalisation (macOS file names, some stores) decomposes them",
			Strings: []string{"\u00e9t\u00e9", "\u00c5ngstr\u00f6m", "ma\u00f1ana", "\u1e9b\u0323"}},
		{Name: "Compatibility characters", Why: "NFKC normalisation folds them to plain letters and digits",
			Strings: []string{"\ufb01 ligature", "\u2460 circled", "\uff26\uff45\uff52\uff4e fullwidth", "x\u00b2", "\u00bd"}},
		{Name: "Letter case", Why: "names and tags lower-cased, upper-cased or case-folded for lookup",
			Strings: []string{"MiXeD CaSe", "İstanbul", "\u01c5 titlecase", "Fern Moss", "Σίσυφος"}},
		{Name: "Length", Why: "VARCHAR(255) or (1000), byte-length limits and 4 KiB buffers cut long strings",
			Strings: []string{strings.Repeat("c", 4097), strings.Repeat("é", 4097), strings.Repeat("ab", 5000)}},
	}
	for i := range own {
		own[i].Source = "plantcheck"
	}
	return own
}
