package proxy

import (
	"crypto/tls"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/testcert"
	"github.com/plantcheck/plantcheck/internal/tlsconf"
	"github.com/plantcheck/plantcheck/reference"
)

// TestHTTPSUpstream: an https upstream on loopback, with a certificate of
// an authority made for the test and asking for a client certificate, is
// reached with the authority (Config.TLS, as --ca-cert gives it) and the
// client certificate (--cert, --key), for a body of a declared length and
// a chunked one alike; without either, every exchange gets the proxy's own
// 502, never counted as the service's.
func TestHTTPSUpstream(t *testing.T) {
	certs := testcert.New(t, t.TempDir())
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	upstream := certs.Serve(t, ref)

	conf := func(ca, cert, key string) *tls.Config {
		c, err := tlsconf.Client(ca, cert, key)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name   string
		tls    *tls.Config
		status int
		marker string
	}{
		{"the authority and a client certificate", conf(certs.CAFile, certs.CertFile, certs.KeyFile), 200, ""},
		{"no client certificate", conf(certs.CAFile, "", ""), http.StatusBadGateway, OwnFailed},
		{"the system's authorities only", conf("", certs.CertFile, certs.KeyFile), http.StatusBadGateway, OwnFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, upstream, func(c *Config) { c.TLS = tc.tls })
			for i, streamed := range []bool{false, true} {
				body := `{"id":` + strconv.Itoa(i+1) + `,"name":"Fern"}`
				var r io.Reader = strings.NewReader(body)
				if streamed {
					r = io.MultiReader(r) // no length known: chunked
				}
				req, _ := http.NewRequest(http.MethodPost, p.url+"/plants", r)
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status || resp.Header.Get(MarkerHeader) != tc.marker {
					t.Errorf("streamed %v: status %d, %s %q; want %d, %q\n%s", streamed, resp.StatusCode,
						MarkerHeader, resp.Header.Get(MarkerHeader), tc.status, tc.marker, got)
				}
			}
			v := p.verdict(Options{})
			wantJudged := int64(2)
			if tc.status == 200 {
				// The same settings for an http upstream: plain HTTP.
				base, tok := referenceUpstream(t)
				plain := startProxy(t, base, func(c *Config) { c.TLS = tc.tls })
				if resp, _ := valid(`{"id":1,"name":"Fern"}`).withToken(tok).send(t, plain.url); resp.StatusCode != 200 {
					t.Errorf("an http upstream with TLS settings: status %d, want 200", resp.StatusCode)
				}
			}
			if tc.status != 200 {
				wantJudged = 0
			}
			if v.Counts.Judged != wantJudged || v.Counts.ServerViolations != 0 || v.Counts.ProxyAnswers[OwnFailed] != 2-wantJudged {
				t.Errorf("judged %d, violations %d, own %v; want %d judged, none held against the service\n%s",
					v.Counts.Judged, v.Counts.ServerViolations, v.Counts.ProxyAnswers, wantJudged, text(t, v))
			}
		})
	}
}
