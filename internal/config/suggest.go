package config

import "strings"

// Suggest returns the candidate closest to name, "" when none is close:
// the same once case and underscores are ignored (base_url, BASE-URL), a
// small edit distance, or the one candidate name begins.
func Suggest(name string, candidates []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	n := norm(strings.TrimLeft(name, "-"))
	if n == "" {
		return ""
	}
	best, bestDist, prefixed := "", 3, []string{}
	if len(n) <= 4 {
		bestDist = 2 // one edit in a short name
	}
	for _, c := range candidates {
		d := editDistance(n, norm(c))
		if d < bestDist {
			best, bestDist = c, d
		}
		if len(n) >= 4 && strings.HasPrefix(norm(c), n) {
			prefixed = append(prefixed, c)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (names are
// ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
