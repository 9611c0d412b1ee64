package config

import "testing"

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"base-url", "token", "token-file", "timeout", "tags", "key", "cert", "seed", "report-dir"}
	for _, tt := range []struct{ in, want string }{
		{"base-ur", "base-url"}, {"base_url", "base-url"}, {"baseurl", "base-url"}, {"BASE-URL", "base-url"},
		{"tokn", "token"}, {"token_file", "token-file"}, {"timout", "timeout"}, {"kee", "key"},
		{"report", "report-dir"}, {"tgas", "tags"}, {"base-ulr", "base-url"}, {"flavour", ""}, {"", ""}, {"x", ""}, {"tok", ""}, // token or token-file
	} {
		if got := Suggest(tt.in, names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSuggestCommand: a command typed with two letters swapped is one
// slip, and gets its did-you-mean.
func TestSuggestCommand(t *testing.T) {
	t.Parallel()
	names := []string{"--version", "run", "serve", "proxy", "judge", "merge", "diff", "compare", "docs", "rules", "selftest", "spec", "version"}
	for _, tt := range []struct{ in, want string }{
		{"rnu", "run"}, {"urn", "run"}, {"srve", "serve"}, {"jugde", "judge"}, {"slftest", "selftest"}, {"certify", ""},
	} {
		if got := Suggest(tt.in, names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
