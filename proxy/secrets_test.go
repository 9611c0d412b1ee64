package proxy

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/evidence"
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
		req, _ := http.NewRequest(http.MethodPost, p.url+"/plants", strings.NewReader(b))
		req.Header.Set("Authorization", "Bearer tok-nested-0123456789")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	v := p.verdict(Options{})
	out := text(t, v)
	if !strings.Contains(out, "request:") {
		t.Fatalf("no exchange was kept as evidence: the test shows nothing\n%s", out)
	}
	dir := t.TempDir()
	if err := v.WriteReports(dir); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"console": out}
	for _, name := range reportFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = string(b)
	}
	red := evidence.New(secrets...)
	for name, o := range outputs {
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(o), strings.ToLower(s)) {
				t.Errorf("%s holds the nested secret %q", name, s)
			}
		}
		if red.Contains(o) {
			t.Errorf("%s holds a nested secret in some form:\n%s", name, red.String(o))
		}
	}
}
