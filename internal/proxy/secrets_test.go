package proxy

import (
	"strings"
	"testing"
)

// TestNestedCredentialsNeverLeak: credentials a client nests in a JSON
// body, at any depth, in an object or an array, reach neither a report
// nor the console, though the service echoes the body whole.
func TestNestedCredentialsNeverLeak(t *testing.T) {
	secrets := []string{
		"nested-password-5b1e9d3c7a",
		"nested-authtoken-2f8c6a4e0d",
		"nested-tokens-item-7d3b1f9e5c",
		"nested-apikey-value-4a6c8e0b2d",
	}
	body := `{"id":"x","name":"n","password":"` + secrets[0] + `","auth":{"token":"` + secrets[1] +
		`"},"tokens":["` + secrets[2] + `"],"credentials":{"api_key":{"value":"` + secrets[3] + `"}}}`
	p := startProxy(t, upstreamOf(t, leaky()), nil)
	for _, b := range []string{body, strings.Replace(body, `"x"`, `1`, 1)} { // refused, then valid
		valid(b).send(t, p.url)
	}
	v := p.verdict(Options{})
	out := text(t, v)
	if !strings.Contains(out, "request:") {
		t.Fatalf("no exchange was kept as evidence: the test shows nothing\n%s", out)
	}
	noCanary(t, v, secrets...)
}
