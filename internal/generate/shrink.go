package generate

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Shrink reduces a failing case to a smaller one that still fails: it
// drops optional properties, shortens strings and moves numbers toward
// zero, keeping each change that still fails, until no change does or the
// budget of attempts is spent. fails re-sends a candidate and says whether
// it still fails. The property a case turns on keeps its class (an invalid
// value stays invalid in the same way), and the property named keep (the
// run's fresh id) is left alone unless an invalid case turns on it. It returns the smallest case found and the
// attempts made.
func Shrink(c *Case, sh *Shape, keep string, budget int, fails func(*Case) bool) (*Case, int) {
	best := c
	tries := 0
	for progress := true; progress && tries < budget; {
		progress = false
		for _, cand := range candidates(best, sh, keep) {
			if tries >= budget {
				break
			}
			tries++
			if fails(cand) {
				best, progress = cand, true
				break
			}
		}
	}
	return best, tries
}

func candidates(c *Case, sh *Shape, keep string) []*Case {
	if c.Raw != nil {
		return nil
	}
	var out []*Case
	for i, m := range c.Members {
		if m.Name == c.Property || slices.ContainsFunc(sh.Properties, func(p Property) bool { return p.Required && p.Name == m.Name }) {
			continue
		}
		out = append(out, c.with(slices.Delete(slices.Clone(c.Members), i, i+1)))
	}
	for i, m := range c.Members {
		if m.Name == keep && (c.Property != keep || c.Kind != Invalid) {
			// A valid case keeps its fresh id, even a case about the id
			// (near an edge): the target stores what it accepts, and a
			// shrunk id (0) may be one a fixed scenario sends, whose
			// outcome would then turn on which of the two came first.
			continue
		}
		if m.Name == c.Property && c.PastBound {
			continue
		}
		for _, smaller := range smallerValues(m.Raw) {
			ms := slices.Clone(c.Members)
			ms[i].Raw = smaller
			out = append(out, c.with(ms))
		}
	}
	return out
}

func (c *Case) with(ms []Member) *Case {
	d := *c
	d.Members = ms
	return &d
}

// smallerValues proposes smaller versions of a JSON string or number, the
// smallest first, keeping its JSON type and whether it has a fraction.
func smallerValues(raw json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return nil
		}
		r := []rune(s)
		out = append(out, quote(""))
		if len(r) > 1 {
			out = append(out, quote(string(r[:1])))
		}
		if len(r) > 3 {
			out = append(out, quote(string(r[:len(r)/2])))
		}
		return out
	}
	lit := string(raw)
	if whole, frac, ok := strings.Cut(lit, "."); ok {
		if n, err := strconv.ParseInt(whole, 10, 64); err == nil && n != 0 && !strings.ContainsAny(frac, "eE") {
			out = append(out, json.RawMessage("0."+frac), json.RawMessage(strconv.FormatInt(n/2, 10)+"."+frac))
		}
		return out
	}
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil && n != 0 {
		out = append(out, json.RawMessage("0"))
		if n/2 != 0 {
			out = append(out, json.RawMessage(strconv.FormatInt(n/2, 10)))
		}
	}
	return out
}
