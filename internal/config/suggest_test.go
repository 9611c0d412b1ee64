package config

import "testing"

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"base-url", "token", "token-file", "timeout", "tags", "key", "cert", "seed", "report-dir"}
	for _, tt := range []struct{ in, want string }{
		{"base-ur", "base-url"}, {"base_url", "base-url"}, {"baseurl", "base-url"}, {"BASE-URL", "base-url"},
		{"tokn", "token"}, {"token_file", "token-file"}, {"timout", "timeout"}, {"kee", "key"},
		{"report", "report-dir"}, {"flavour", ""}, {"", ""}, {"x", ""}, {"tok", ""}, // token or token-file
	} {
		if got := Suggest(tt.in, names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
