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

// editDistance is the edit distance of a and b, in bytes (names are
// ASCII), two neighbours swapped counting as one edit (the optimal string
// alignment distance): rnu is one slip from run, as a typist makes it.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
