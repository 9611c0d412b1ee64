package mutants

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/plantcheck/plantcheck/internal/generate"
)

// stringSiblings are the narrow siblings of the string-mangling mutants:
// each changes only part of what its wide sibling changes.
var stringSiblings = []string{
	"compose-latin-accents", "rtrim-spaces", "chomp-newline", "escape-angle-brackets", "strip-tags",
	"nul-cuts-string", "emoji-to-question", "crlf-only-to-lf", "json-numeric-check", "escape-quote-only",
	"escape-quote-backslash", "ascii-lower-tag", "capfirst-name", "strip-zero-width", "strip-xml-invalid",
	"strip-line-separators",
}

// same: the mutant answers as the reference does.
func same(t *testing.T, r, m answer) {
	t.Helper()
	if !reflect.DeepEqual(m, r) {
		t.Errorf("mutant answers %d %s %q, reference %d %s %q", m.status, m.contentType, m.body, r.status, r.contentType, r.body)
	}
}

// notJSON: both answer 200, the mutant with a body that is not JSON.
func notJSON(t *testing.T, r, m answer) {
	t.Helper()
	statuses(http.StatusOK, http.StatusOK)(t, r, m)
	if json.Valid(m.body) {
		t.Errorf("mutant's answer is valid JSON: %q", m.body)
	}
}

// TestStringSiblingsShow sends each narrow sibling a string it mangles and
// one it leaves, which its wide sibling would mangle too, and an ordinary
// plant, which it answers as the reference does.
func TestStringSiblingsShow(t *testing.T) {
	t.Parallel()
	body := func(name, tag string) request { return request{body: plant(name, tag)} }
	tests := []struct {
		mutant, name string
		rq           request
		check        check
	}{
		{"compose-latin-accents", "é in the name", body("Cafe\u0301", "green"), echo("name", "Cafe\u0301", "Caf\u00e9")},
		{"compose-latin-accents", "Å in the tag", body("Fern", "A\u030angstr\u00f6m"), echo("tag", "A\u030angstr\u00f6m", "\u00c5ngstr\u00f6m")},
		{"compose-latin-accents", "á kept", body("a\u0301", "green"), echo("name", "a\u0301", "a\u0301")},
		{"compose-latin-accents", "jamo kept", body("Fern", "\u1112\u1161\u11ab"), echo("tag", "\u1112\u1161\u11ab", "\u1112\u1161\u11ab")},
		{"rtrim-spaces", "spaces at both ends", body("  both  ", "green"), echo("name", "  both  ", "  both")},
		{"rtrim-spaces", "a tab last kept", body("Fern", "green\t"), echo("tag", "green\t", "green\t")},
		{"chomp-newline", "CR LF last", body("Fern\r\n", "green"), echo("name", "Fern\r\n", "Fern")},
		{"chomp-newline", "one of two", body("Fern", "green\n\n"), echo("tag", "green\n\n", "green\n")},
		{"chomp-newline", "a tab first kept", body("\tFern", "green"), echo("name", "\tFern", "\tFern")},
		{"escape-angle-brackets", "a tag", body("<b>Fern</b>", "green"), echo("name", "<b>Fern</b>", "&lt;b&gt;Fern&lt;/b&gt;")},
		{"escape-angle-brackets", "& and quotes kept", body("Fern", `"Fern" & 'Moss'`), echo("tag", `"Fern" & 'Moss'`, `"Fern" & 'Moss'`)},
		{"strip-tags", "a tag", body("<b>Fern</b>", "green"), echo("name", "<b>Fern</b>", "Fern")},
		{"strip-tags", "& kept", body("Fern", "Fern & Moss"), echo("tag", "Fern & Moss", "Fern & Moss")},
		{"nul-cuts-string", "NUL inside", body("nul\x00inside", "green"), echo("name", "nul\x00inside", "nul")},
		{"nul-cuts-string", "NUL first", body("Fern", "\x00leading"), echo("tag", "\x00leading", "")},
		{"emoji-to-question", "an emoji", body("cactus \U0001f335", "green"), echo("name", "cactus \U0001f335", "cactus ?")},
		{"emoji-to-question", "other 4-byte characters kept", body("Fern", "\U0001d509\U0002070e"), echo("tag", "\U0001d509\U0002070e", "\U0001d509\U0002070e")},
		{"crlf-only-to-lf", "CR LF", body("crlf\r\nline", "green"), echo("name", "crlf\r\nline", "crlf\nline")},
		{"crlf-only-to-lf", "a lone CR kept", body("Fern", "cr\ronly"), echo("tag", "cr\ronly", "cr\ronly")},
		{"json-numeric-check", "digits", body("42", "green"), echo("name", "42", 42.0)},
		{"json-numeric-check", "a leading zero", body("Fern", "007"), echo("tag", "007", 7.0)},
		{"json-numeric-check", "true kept", body("true", "green"), echo("name", "true", "true")},
		{"json-numeric-check", "hexadecimal kept", body("Fern", "0x1F"), echo("tag", "0x1F", "0x1F")},
		{"escape-quote-only", "a backslash", body(`back\slash`, "green"), notJSON},
		{"escape-quote-only", `\u0041 read as A`, body(`\u0041`, "green"), echo("name", `\u0041`, "A")},
		{"escape-quote-only", "a quote kept", body(`say "hi"`, "green"), echo("name", `say "hi"`, `say "hi"`)},
		{"escape-quote-backslash", "a tab", body("Fern", "tab\tinside"), notJSON},
		{"escape-quote-backslash", "a backslash kept", body(`back\slash`, "green"), echo("name", `back\slash`, `back\slash`)},
		{"ascii-lower-tag", "ASCII capitals", body("Fern", "fern MOSS"), echo("tag", "fern MOSS", "fern moss")},
		{"ascii-lower-tag", "Σ kept", body("Fern", "Σίσυφος"), echo("tag", "Σίσυφος", "Σίσυφος")},
		{"ascii-lower-tag", "the name kept", body("MOSS", "green"), echo("name", "MOSS", "MOSS")},
		{"capfirst-name", "a lower-case letter first", body("fern MOSS", "green"), echo("name", "fern MOSS", "Fern MOSS")},
		{"capfirst-name", "the tag kept", body("Fern", "green"), echo("tag", "green", "green")},
		{"strip-zero-width", "U+200B", body("zero\u200bwidth", "green"), echo("name", "zero\u200bwidth", "zerowidth")},
		{"strip-zero-width", "the soft hyphen kept", body("Fern", "soft\u00adhyphen"), echo("tag", "soft\u00adhyphen", "soft\u00adhyphen")},
		{"strip-xml-invalid", "BEL", body("bell\a", "green"), echo("name", "bell\a", "bell")},
		{"strip-xml-invalid", "DEL and tab kept", body("Fern", "del\x7f\t"), echo("tag", "del\x7f\t", "del\x7f\t")},
		{"strip-line-separators", "U+2028", body("line\u2028separator", "green"), echo("name", "line\u2028separator", "lineseparator")},
		{"strip-line-separators", "NEL kept", body("Fern", "next\u0085line"), echo("tag", "next\u0085line", "next\u0085line")},
	}
	for _, name := range stringSiblings {
		tests = append(tests, struct {
			mutant, name string
			rq           request
			check        check
		}{name, "an ordinary plant", body("Fern", "green"), same})
	}
	seen := map[string]int{}
	for _, tt := range tests {
		seen[tt.mutant]++
		t.Run(tt.mutant+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			m, ok := Lookup(tt.mutant)
			if !ok {
				t.Fatalf("no mutant %s", tt.mutant)
			}
			ref := send(t, serve(t, nil, shortToken), shortToken, tt.rq)
			mut := send(t, serve(t, &m, shortToken), shortToken, tt.rq)
			tt.check(t, ref, mut)
		})
	}
	for _, name := range stringSiblings {
		if seen[name] < 3 {
			t.Errorf("mutant %s has %d rows, want a string it mangles, one it leaves and an ordinary plant", name, seen[name])
		}
	}
}

// TestStringSiblingsMeetAFixedString: each narrow sibling changes, as the
// name or as the tag it mangles, some fixed string of the catalog of
// hostile strings, which every run sends whatever its seed: so every run
// catches it.
func TestStringSiblingsMeetAFixedString(t *testing.T) {
	t.Parallel()
	var fixed []string
	for _, c := range generate.Catalog() {
		fixed = append(fixed, c.Fixed...)
	}
	for _, name := range stringSiblings {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m, ok := Lookup(name)
			if !ok {
				t.Fatalf("no mutant %s", name)
			}
			ref, mut := serve(t, nil, shortToken), serve(t, &m, shortToken)
			id := 0
			for _, s := range fixed {
				for _, field := range []string{"name", "tag"} {
					id++ // the reference refuses an id it stores
					obj := map[string]any{"id": id, "name": "Fern", "tag": s}
					if field == "name" {
						obj["name"], obj["tag"] = s, "green"
					}
					b, _ := json.Marshal(obj)
					rq := request{body: string(b)}
					r, g := send(t, ref, shortToken, rq), send(t, mut, shortToken, rq)
					if r.status != http.StatusOK {
						t.Fatalf("reference answers %d to %q: %s", r.status, s, r.body)
					}
					var got map[string]any
					if json.Unmarshal(g.body, &got) != nil || !reflect.DeepEqual(got[field], s) {
						return // changed: caught
					}
				}
			}
			t.Errorf("%s echoes every fixed string of the catalog exactly, as name and as tag", name)
		})
	}
}
