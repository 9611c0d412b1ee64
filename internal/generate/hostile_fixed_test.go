package generate

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The narrow manglings real servers do: each changes only part of what its
// category's mangling changes, so a drawn string can slip past it. A
// mangling that makes a string no JSON reader gets back returns marked.

const marked = "\x00(not the string)"

// replacer maps runes; r returns -1 to drop one.
func replacer(r func(rune) rune) func(string) string {
	return func(s string) string { return strings.Map(r, s) }
}

// whole turns s into marked when ok(s).
func whole(ok func(string) bool) func(string) string {
	return func(s string) string {
		if ok(s) {
			return marked
		}
		return s
	}
}

var (
	digitsOnly      = regexp.MustCompile(`^[0-9]+$`)
	phpNumeric      = regexp.MustCompile(`^[ \t\n\r\v\f]*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?[ \t\n\r\v\f]*$`)
	leadingZeros    = regexp.MustCompile(`^0+([0-9])`)
	htmlTag         = regexp.MustCompile(`<[^>]*>`)
	ansiEscape      = regexp.MustCompile("\x1b\\[[0-9;]*m")
	xml10Invalid    = regexp.MustCompile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
	commonZeroWidth = regexp.MustCompile("[\u200b-\u200d\ufeff]")
	blankLines      = regexp.MustCompile("\n\n+")
)

// jsonWritten is what a JSON reader makes of s written between quotes by a
// hand-written escaper.
func jsonWritten(escape func(string) string) func(string) string {
	return func(s string) string {
		var got string
		if json.Unmarshal([]byte(`"`+escape(s)+`"`), &got) != nil {
			return marked
		}
		return got
	}
}

func trimFunc(cut func(rune) bool) func(string) string {
	return func(s string) string { return strings.TrimFunc(s, cut) }
}

// composeLatin composes é à ö ü ñ ç Å from a letter and a combining mark,
// and nothing else: the hand-written table of "fix encoding" helpers.
var composeLatin = strings.NewReplacer("e\u0301", "é", "a\u0300", "à", "o\u0308", "ö", "u\u0308", "ü",
	"n\u0303", "ñ", "c\u0327", "ç", "A\u030a", "Å").Replace

// composeJamo composes conjoining jamo (L V, L V T) into Hangul syllables
// and leaves everything else.
func composeJamo(s string) string {
	r := []rune(s)
	var out []rune
	for i := 0; i < len(r); i++ {
		if i+1 < len(r) && r[i] >= 0x1100 && r[i] <= 0x1112 && r[i+1] >= 0x1161 && r[i+1] <= 0x1175 {
			syl := 0xAC00 + ((r[i]-0x1100)*21+(r[i+1]-0x1161))*28
			i++
			if i+1 < len(r) && r[i+1] >= 0x11A8 && r[i+1] <= 0x11C2 {
				syl += r[i+1] - 0x11A7
				i++
			}
			out = append(out, syl)
			continue
		}
		out = append(out, r[i])
	}
	return string(out)
}

// decomposeHangul decomposes Hangul syllables alone (NFD of U+AC00 to U+D7A3).
func decomposeHangul(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xAC00 && r <= 0xD7A3 {
			b.WriteString(norm.NFD.String(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stripAccents drops the combining marks of the NFD form, as unaccent,
// slugify and iconv's //TRANSLIT do, and composes the rest again.
func stripAccents(s string) string {
	return norm.NFC.String(strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s)))
}

func cutRunes(n int) func(string) string {
	return func(s string) string {
		if r := []rune(s); len(r) > n {
			return string(r[:n])
		}
		return s
	}
}

func cutBytes(n int) func(string) string {
	return func(s string) string { return s[:min(n, len(s))] }
}

// ucfirst upper-cases the first byte when it is an ASCII letter (PHP).
func ucfirst(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// asciiCase maps ASCII letters alone (PHP 8.2's strtolower and strtoupper).
func asciiCase(lower bool) func(string) string {
	return replacer(func(r rune) rune {
		switch {
		case lower && r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case !lower && r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	})
}

// TestFixedStringsCatchNarrowManglings: for every narrow mangling real
// servers do of a category's class, some fixed string of the category is
// changed by it, so every run, whatever its seed, finds a server that
// mangles so. Every own category has its row; of the Big List's, whose
// fixed string is the first of the category, those with a mangling of
// their own.
func TestFixedStringsCatchNarrowManglings(t *testing.T) {
	t.Parallel()
	// Manglings met in more than one category.
	var (
		digitsToNumber  = whole(digitsOnly.MatchString)
		angleBrackets   = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace
		stripTags       = func(s string) string { return htmlTag.ReplaceAllString(s, "") }
		charColumn      = func(s string) string { return strings.TrimRight(s, " ") }
		zwspRemoved     = strings.NewReplacer("\u200b", "").Replace
		ansiStripped    = func(s string) string { return ansiEscape.ReplaceAllString(s, "") }
		quoteEscaped    = jsonWritten(strings.NewReplacer(`"`, `\"`).Replace)
		addslashes      = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "'", `\'`, "\x00", `\0`).Replace
		emojiToQuestion = replacer(func(r rune) rune {
			if r >= 0x1F000 && r <= 0x1FAFF {
				return '?'
			}
			return r
		})
		fullWidthFolded = replacer(func(r rune) rune {
			if r >= 0xFF01 && r <= 0xFF5E {
				return r - 0xFEE0
			}
			return r
		})
	)
	narrow := map[string]map[string]func(string) string{
		"JSON number and literal texts": {
			"PHP's JSON_NUMERIC_CHECK":            whole(phpNumeric.MatchString),
			"digits read as a number":             digitsToNumber,
			`"null" read as null`:                 whole(func(s string) bool { return s == "null" }),
			`"true" and "false" read as booleans`: whole(func(s string) bool { return s == "true" || s == "false" }),
		},
		"Number look-alikes of other syntaxes": {
			"a numeric column (leading zeros lost)": func(s string) string { return leadingZeros.ReplaceAllString(s, "$1") },
			"strtol with base 0": whole(func(s string) bool {
				_, err := strconv.ParseInt(s, 0, 64)
				return err == nil
			}),
			"PHP's is_numeric": whole(phpNumeric.MatchString),
		},
		"HTML special characters": {
			"< and > alone escaped":          angleBrackets,
			"& alone escaped":                strings.NewReplacer("&", "&amp;").Replace,
			"ENT_NOQUOTES (& < >)":           strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace,
			"quotes alone escaped":           strings.NewReplacer(`"`, "&quot;", "'", "&#39;").Replace,
			"ENT_COMPAT (no single quote)":   strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace,
			"strip_tags":                     stripTags,
			"the single quote alone escaped": strings.NewReplacer("'", "&#39;").Replace,
			"the double quote alone escaped": strings.NewReplacer(`"`, "&quot;").Replace,
		},
		"Edge spaces": {
			"a CHAR column (trailing spaces)": charColumn,
			"ltrim":                           func(s string) string { return strings.TrimLeft(s, " ") },
			"trim":                            func(s string) string { return strings.Trim(s, " ") },
		},
		"Edge white space other than the space": {
			"PHP's trim (ASCII white space and NUL)": func(s string) string { return strings.Trim(s, " \t\n\r\x00\x0b") },
			"Java's String.trim (up to U+0020)":      trimFunc(func(r rune) bool { return r <= ' ' }),
			"chomp (one line break last)": func(s string) string {
				return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
			},
			"rstrip of white space": func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
			"lstrip of white space": func(s string) string { return strings.TrimLeftFunc(s, unicode.IsSpace) },
		},
		"Inner white space": {
			"double spaces replaced":   strings.NewReplacer("  ", " ").Replace,
			"tabs turned into spaces":  strings.NewReplacer("\t", " ").Replace,
			"runs of spaces collapsed": func(s string) string { return regexp.MustCompile(` +`).ReplaceAllString(s, " ") },
		},
		"Zero-width and invisible characters": {
			"[\\u200B-\\u200D\\uFEFF] removed": func(s string) string { return commonZeroWidth.ReplaceAllString(s, "") },
			"U+200B alone removed":             zwspRemoved,
			"a leading BOM removed":            func(s string) string { return strings.TrimPrefix(s, "\ufeff") },
			"soft hyphens removed":             strings.NewReplacer("\u00ad", "").Replace,
			"the word joiner removed":          strings.NewReplacer("\u2060", "").Replace,
			"ZWNJ removed":                     strings.NewReplacer("\u200c", "").Replace,
		},
		"NUL": {
			"a C string (cut at NUL)":     func(s string) string { s, _, _ = strings.Cut(s, "\x00"); return s },
			"NUL stripped":                strings.NewReplacer("\x00", "").Replace,
			"NUL trimmed at the edges":    func(s string) string { return strings.Trim(s, "\x00") },
			"NUL trimmed at the end":      func(s string) string { return strings.TrimRight(s, "\x00") },
			"NUL replaced by U+FFFD":      strings.NewReplacer("\x00", "\ufffd").Replace,
			"NUL written as the text \\0": strings.NewReplacer("\x00", `\0`).Replace,
		},
		"Control characters": {
			"XML 1.0's invalid characters removed (DEL kept)": func(s string) string { return xml10Invalid.ReplaceAllString(s, "") },
			"ANSI colours stripped":                           ansiStripped,
			"DEL removed":                                     strings.NewReplacer("\x7f", "").Replace,
			"vertical tab and form feed turned into spaces":   strings.NewReplacer("\v", " ", "\f", " ").Replace,
			"BEL removed":                                     strings.NewReplacer("\a", "").Replace,
		},
		"JSON escapes and backslashes": {
			"the quote alone escaped":                   quoteEscaped,
			"the quote and the backslash alone escaped": jsonWritten(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace),
			"nothing escaped (Sprintf)":                 jsonWritten(func(s string) string { return s }),
			"stripslashes": func(s string) string {
				return regexp.MustCompile(`\\(.?)`).ReplaceAllString(s, "$1")
			},
			"addslashes": addslashes,
		},
		"Carriage returns": {
			"CR LF alone turned into LF": strings.NewReplacer("\r\n", "\n").Replace,
			"a lone CR turned into LF": func(s string) string {
				return regexp.MustCompile("\r([^\n]|$)").ReplaceAllString(s, "\n$1")
			},
			"CR stripped":        strings.NewReplacer("\r", "").Replace,
			"chomp (CR LF last)": func(s string) string { return strings.TrimSuffix(s, "\r\n") },
			"CR LF and CR to LF": strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace,
		},
		"Line feeds": {
			"LF turned into CR LF":   strings.NewReplacer("\n", "\r\n").Replace,
			"nl2br":                  strings.NewReplacer("\n", "<br />\n").Replace,
			"blank lines collapsed":  func(s string) string { return blankLines.ReplaceAllString(s, "\n") },
			"line breaks to a space": strings.NewReplacer("\n", " ").Replace,
		},
		"Unicode line separators": {
			"U+2028 and U+2029 removed (the JavaScript fix)": strings.NewReplacer("\u2028", "", "\u2029", "").Replace,
			"NEL read as a line break":                       strings.NewReplacer("\u0085", "\n").Replace,
			"Python's splitlines, joined by LF":              strings.NewReplacer("\u2028", "\n", "\u2029", "\n", "\u0085", "\n").Replace,
		},
		"Characters beyond the BMP": {
			"emoji alone replaced by '?'": emojiToQuestion,
			"utf8mb3 without strict mode (cut at the first)": func(s string) string {
				if i := strings.IndexFunc(s, func(r rune) bool { return r > 0xFFFF }); i >= 0 {
					return s[:i]
				}
				return s
			},
			"emoji removed": replacer(func(r rune) rune {
				if r >= 0x1F000 && r <= 0x1FAFF {
					return -1
				}
				return r
			}),
		},
		"Decomposed characters": {
			"é à ö ü ñ ç Å alone composed": composeLatin,
			"Hangul jamo alone composed":   composeJamo,
			"marks put in canonical order": norm.NFD.String,
			"NFC":                          norm.NFC.String,
		},
		"Precomposed characters": {
			"accents stripped (unaccent, slugify)": stripAccents,
			"Hangul syllables alone decomposed":    decomposeHangul,
			"é alone decomposed":                   strings.NewReplacer("é", "e\u0301").Replace,
			"NFD":                                  norm.NFD.String,
		},
		"Compatibility characters": {
			"full-width letters alone folded (mb_convert_kana)": fullWidthFolded,
			"ligatures alone expanded":                          strings.NewReplacer("\ufb01", "fi", "\ufb02", "fl").Replace,
			"superscripts alone folded":                         strings.NewReplacer("\u00b2", "2", "\u00b3", "3", "\u00b9", "1").Replace,
			"NFKC":                                              norm.NFKC.String,
		},
		"Letter case": {
			"PHP's ucfirst":           ucfirst,
			"Django's capfirst":       func(s string) string { r, n := utf8.DecodeRuneInString(s); return string(unicode.ToUpper(r)) + s[n:] },
			"ucwords(strtolower())":   ucwordsLower,
			"ASCII alone lower-cased": asciiCase(true),
			"ASCII alone upper-cased": asciiCase(false),
			"lower-cased":             strings.ToLower,
			"upper-cased":             strings.ToUpper,
		},
		"Length": {
			"VARCHAR(255)":                        cutRunes(255),
			"4,096 characters":                    cutRunes(4096),
			"NVARCHAR(4000)":                      cutRunes(4000),
			"4 KiB of bytes":                      cutBytes(4096),
			"8 KiB of bytes (an 8 KiB buffer)":    cutBytes(8192),
			"VARCHAR(8000) of bytes (SQL Server)": cutBytes(8000),
		},

		// The Big List's categories, whose fixed string is their first.
		"Numeric Strings": {
			"digits read as a number": digitsToNumber,
		},
		"Special Characters": {
			"the quote alone escaped": quoteEscaped,
			"addslashes":              addslashes,
		},
		"Quotation Marks": {
			"addslashes":                        addslashes,
			"the single quote escaped for HTML": strings.NewReplacer("'", "&#39;").Replace,
		},
		"Script Injection": {
			"< and > alone escaped": angleBrackets,
			"strip_tags":            stripTags,
		},
		"Unicode Spaces": {
			"U+200B alone removed": zwspRemoved,
		},
		"Emoji": {
			"emoji alone replaced by '?'": emojiToQuestion,
		},
		"Regional Indicator Symbols": {
			"a CHAR column (trailing spaces)": charColumn,
		},
		"Two-Byte Characters": {
			"a Latin-1 column ('?' past U+00FF)": replacer(func(r rune) rune {
				if r > 0xFF {
					return '?'
				}
				return r
			}),
		},
		"Unicode font": {
			"full-width letters alone folded (mb_convert_kana)": fullWidthFolded,
		},
		"Zalgo Text": {
			"combining marks stripped": replacer(func(r rune) rune {
				if unicode.Is(unicode.Mn, r) {
					return -1
				}
				return r
			}),
		},
		"Trick Unicode": {
			"bidirectional controls stripped": replacer(func(r rune) rune {
				if r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 {
					return -1
				}
				return r
			}),
		},
		"Terminal escape codes": {
			"ANSI colours stripped": ansiStripped,
		},
		"Unwanted Interpolation": {
			"$VAR expanded": func(s string) string { return regexp.MustCompile(`\$[A-Z]+`).ReplaceAllString(s, "/root") },
		},
		"File Inclusion": {
			"percent-decoded": strings.NewReplacer("%00", "\x00").Replace,
			"path cleaned":    strings.NewReplacer("../", "").Replace,
		},
	}
	seen := map[string]bool{}
	for _, c := range Catalog() {
		if len(c.Fixed) == 0 || len(c.Fixed) > 3 {
			t.Errorf("category %q has %d fixed strings, want one to three", c.Name, len(c.Fixed))
		}
		rows, ok := narrow[c.Name]
		if !ok {
			if c.Source == "plantcheck" {
				t.Errorf("own category %q has no narrow manglings in this test", c.Name)
			}
			continue
		}
		seen[c.Name] = true
		for name, mangle := range rows {
			if !slices.ContainsFunc(c.Fixed, func(s string) bool { return mangle(s) != s }) {
				t.Errorf("%q: no fixed string is changed by %s: %q", c.Name, name, c.Fixed)
			}
		}
	}
	for name := range narrow {
		if !seen[name] {
			t.Errorf("no category %q in the catalog", name)
		}
	}
}

// ucwordsLower is PHP's ucwords(strtolower($s)): names in title case.
func ucwordsLower(s string) string {
	b := []byte(asciiCase(true)(s))
	for i := range b {
		if (i == 0 || b[i-1] == ' ') && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// TestSent: the fixed strings always, then the draw unless it repeats one;
// every string once with all; the draw made once either way.
func TestSent(t *testing.T) {
	t.Parallel()
	c := Category{Fixed: []string{"f"}, Strings: []string{"a", "f", "b"}}
	tests := []struct {
		name  string
		pick  int
		all   bool
		want  []string
		draws int
	}{
		{"a draw of another string", 0, false, []string{"f", "a"}, 1},
		{"a draw of the fixed string", 1, false, []string{"f"}, 1},
		{"all", 0, true, []string{"f", "a", "b"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			draws := 0
			got := c.Sent(func(n int) int {
				draws++
				if n != len(c.Strings) {
					t.Errorf("draw among %d, want %d", n, len(c.Strings))
				}
				return tt.pick
			}, tt.all)
			if !slices.Equal(got, tt.want) || draws != tt.draws {
				t.Errorf("Sent = %q after %d draws, want %q after %d", got, draws, tt.want, tt.draws)
			}
		})
	}
}
