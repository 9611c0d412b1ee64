package features

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// TagFilter is a tag expression in godog's grammar, checked: terms joined
// by "&&" (and) of alternatives joined by "," (or), each a tag, "~" before
// it for not. "@must && ~@AUTH-NEAR-MISS" selects the MUST scenarios but
// those of AUTH-NEAR-MISS; "@area-auth,@area-media" those of either area.
type TagFilter struct {
	expr string
	and  [][]tagTerm
}

type tagTerm struct {
	tag string // without "@"
	not bool
}

var tagWord = regexp.MustCompile(`^~?@?[A-Za-z0-9_.-]+$`)

// ParseTags checks a tag expression as godog reads it, which on a slip
// panics (an empty term), or silently selects nothing (a parenthesis,
// "||", "and", a misspelt tag). A term must name a tag some scenario has.
func ParseTags(expr string) (TagFilter, error) {
	f := TagFilter{expr: expr}
	if strings.TrimSpace(expr) == "" {
		return f, nil
	}
	grammar := `write "&&" for and, "," for or, "~" before a tag for not, as in '@must && ~@AUTH-NEAR-MISS'`
	if strings.Contains(expr, "||") {
		return f, fmt.Errorf("tag expression %q: \"||\" is not or here: %s", expr, grammar)
	}
	known := knownTags()
	for _, group := range strings.Split(expr, "&&") {
		var alts []tagTerm
		for _, term := range strings.Split(group, ",") {
			term = strings.TrimSpace(term)
			switch {
			case term == "":
				return f, fmt.Errorf("tag expression %q: an empty term (before or after \"&&\" or \",\"): %s", expr, grammar)
			case !tagWord.MatchString(term):
				return f, fmt.Errorf("tag expression %q: %q is not a tag (parentheses and the words and, or, not are not this grammar): %s", expr, term, grammar)
			}
			t := tagTerm{tag: strings.ReplaceAll(strings.TrimPrefix(term, "~"), "@", ""), not: term[0] == '~'}
			if !slices.Contains(known, t.tag) {
				return f, fmt.Errorf("tag expression %q: no scenario has the tag @%s (tags: @%s)", expr, t.tag, strings.Join(known, ", @"))
			}
			alts = append(alts, t)
		}
		f.and = append(f.and, alts)
	}
	return f, nil
}

// Match reports whether a scenario with these tags (with or without "@")
// is selected, as godog decides it.
func (f TagFilter) Match(tags []string) bool {
	has := func(t string) bool {
		return slices.ContainsFunc(tags, func(s string) bool { return strings.TrimPrefix(s, "@") == t })
	}
	for _, alts := range f.and {
		if !slices.ContainsFunc(alts, func(t tagTerm) bool { return has(t.tag) != t.not }) {
			return false
		}
	}
	return true
}

// Select returns the scenarios the filter selects.
func (f TagFilter) Select(scs []Scenario) []Scenario {
	var out []Scenario
	for _, s := range scs {
		if f.Match(s.Tags) {
			out = append(out, s)
		}
	}
	return out
}

// knownTags are the tags of the embedded features, without "@", sorted.
func knownTags() []string {
	scs, _ := Scenarios()
	var out []string
	for _, s := range scs {
		for _, t := range s.Tags {
			out = append(out, strings.TrimPrefix(t, "@"))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
