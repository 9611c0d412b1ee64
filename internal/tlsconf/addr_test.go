package tlsconf

import (
	"net/url"
	"testing"
)

func TestAddr(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"http://example.test/api", "example.test:80"},
		{"https://example.test", "example.test:443"},
		{"socks5://127.0.0.1", "127.0.0.1:1080"},
		{"https://example.test:8443/x", "example.test:8443"},
		{"http://[::1]", "[::1]:80"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := Addr(u); got != tt.want {
			t.Errorf("Addr(%s) = %q, want %q", tt.url, got, tt.want)
		}
	}
}
