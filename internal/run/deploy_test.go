package run

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/testcert"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// TestAGatewayKeyHeader: a gateway stand-in that wants its own key refuses
// a run without it and passes one with --header; the key, which it echoes
// back, is never printed or written, and the reproduction reads it from a
// variable; a header the scenarios set cannot be given.
func TestAGatewayKeyHeader(t *testing.T) {
	t.Parallel()
	const key = "gw-key-Zq81/abcdefghijklmnop"
	ref, token := referenceHandler(t)
	base := handlerTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte("gateway: missing key"))
			return
		}
		w.Header().Set("X-Seen-Key", strings.ToUpper(key)) // a gateway that talks too much
		ref.ServeHTTP(w, r)
	})
	tests := []struct {
		name     string
		headers  http.Header
		wantErr  error
		wantCode int
		cause    string // the flag the likely cause names
	}{
		{"without the key", nil, nil, 1, "--header"},
		{"with the key", http.Header{"X-Api-Key": {key}}, nil, 0, ""},
		{"a header the scenarios set", http.Header{"Authorization": {"Bearer x"}}, ErrConfig, 0, ""},
		{"a name a shell would expand", http.Header{"X-$Key": {"v"}}, ErrConfig, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var console strings.Builder
			rep, err := runWith(context.Background(), Config{BaseURL: base, Token: token, Headers: tt.headers, ReportDir: dir, Tags: "@area-create,@area-auth"}, Options{Output: &console})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rep.WriteVerdict(&console)
			if got := rep.ExitCode(); got != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", got, tt.wantCode, console.String())
			}
			if !strings.Contains(rep.LikelyCause, tt.cause) || (tt.cause == "") != (rep.LikelyCause == "") {
				t.Errorf("likely cause %q, want one naming %q", rep.LikelyCause, tt.cause)
			}
			for file, text := range outputs(t, console.String(), dir) {
				if strings.Contains(strings.ToLower(text), strings.ToLower(key[:12])) {
					t.Errorf("%s holds the gateway key", file)
				}
			}
		})
	}
	// A failure's reproduction names the variable, never the value.
	var out strings.Builder
	rep, err := runWith(context.Background(), Config{BaseURL: base, Token: token + "-wrong", Headers: http.Header{"X-Api-Key": {key}}, Tags: "@CREATE-200"}, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteFailures(&out)
	if !strings.Contains(out.String(), `-H "X-Api-Key: ${PLANTCHECK_HEADER_X_API_KEY}"`) || strings.Contains(out.String(), key) {
		t.Errorf("the reproduction does not read the key from its variable:\n%s", out.String())
	}
}

// referenceHandler is the reference server's handler with a fresh token.
func referenceHandler(t *testing.T) (http.Handler, string) {
	token := reference.RandomToken(40)
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return ref, token
}

// TestThroughAProxy: a target whose name only the proxy resolves is
// reached, the reachability check included, through --proxy.
func TestThroughAProxy(t *testing.T) {
	t.Parallel()
	ref, token := referenceHandler(t)
	inner := httptest.NewServer(ref)
	t.Cleanup(inner.Close)
	innerURL, _ := url.Parse(inner.URL)
	var seen atomic.Int32
	proxy := handlerTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host != "plants.internal.test" {
			http.Error(w, "proxy: unknown host "+r.URL.Host, http.StatusBadGateway)
			return
		}
		seen.Add(1)
		rp := httputil.NewSingleHostReverseProxy(innerURL)
		rp.ServeHTTP(w, r)
	})
	rep, err := runWith(context.Background(), Config{BaseURL: "http://plants.internal.test/", Token: token, Proxy: proxy, Tags: "@area-create"}, Options{Output: &strings.Builder{}})
	if err != nil {
		t.Fatalf("Run through the proxy: %v", err)
	}
	if rep.ExitCode() != 0 || seen.Load() == 0 {
		t.Errorf("exit %d, %d requests through the proxy; want 0 and some", rep.ExitCode(), seen.Load())
	}
	if _, err := runWith(context.Background(), Config{BaseURL: "http://plants.internal.test/", Token: token, Proxy: "http://127.0.0.1:1"}, Options{Output: &strings.Builder{}}); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "proxy") {
		t.Errorf("an unreachable proxy: %v, want ErrUnreachable naming the proxy", err)
	}
}

// TestMutualTLS: a server that requires a client certificate is certified
// with --cert and --key; without them the run cannot be made (exit 2, not a
// rule failure), and the message names the flags.
func TestMutualTLS(t *testing.T) {
	t.Parallel()
	ref, token := referenceHandler(t)
	certs := testcert.New(t, t.TempDir())
	url, caFile, certFile, keyFile := certs.Serve(t, ref), certs.CAFile, certs.CertFile, certs.KeyFile

	_, err := runWith(context.Background(), Config{BaseURL: url, Token: token, CACert: caFile}, Options{Output: &strings.Builder{}})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "--cert") {
		t.Errorf("without a client certificate: %v, want ErrUnreachable naming --cert", err)
	}
	rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, CACert: caFile, Cert: certFile, Key: keyFile, Tags: "@area-create"}, Options{Output: &strings.Builder{}})
	if err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	if rep.ExitCode() != 0 {
		t.Errorf("exit %d with a client certificate, want 0", rep.ExitCode())
	}
	if _, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Cert: certFile}, Options{Output: &strings.Builder{}}); !errors.Is(err, ErrConfig) {
		t.Errorf("--cert without --key: %v, want ErrConfig", err)
	}
}

// TestCACertAddsToTheSystemRoots: --ca-cert trusts a private authority
// beside the system's, not instead of them (a deployment behind a public
// certificate and a private one both stay reachable).
func TestCACertAddsToTheSystemRoots(t *testing.T) {
	t.Parallel()
	system, err := x509.SystemCertPool()
	if err != nil || system.Equal(x509.NewCertPool()) {
		t.Skip("this machine has no system certificate authorities")
	}
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	conf, err := (&Config{CACert: caFile}).tlsConfig()
	if err != nil {
		t.Fatal(err)
	}
	want := system.Clone()
	want.AddCert(srv.Certificate())
	if !conf.RootCAs.Equal(want) {
		t.Error("the roots are not the system's and the CA file's")
	}
	only := x509.NewCertPool()
	only.AddCert(srv.Certificate())
	if conf.RootCAs.Equal(only) {
		t.Error("the CA file replaced the system's authorities")
	}
}

// TestSchemeMixUps: http:// to a server that speaks TLS, and https:// to
// one that speaks plain HTTP, are mistakes of the setup, not of the
// service: the run cannot be made (exit 2) and says which scheme to use,
// whichever kind of TLS server it is (Go's, which answers a plain request
// with a 400, and one that only resets, as many front ends do); a plain
// server is still run over http://.
func TestSchemeMixUps(t *testing.T) {
	t.Parallel()
	ref, token := referenceHandler(t)
	goTLS := httptest.NewTLSServer(ref)
	t.Cleanup(goTLS.Close)
	plain := httptest.NewServer(ref)
	t.Cleanup(plain.Close)
	// A TLS server that closes a connection whose first bytes are not a
	// handshake, without a word of HTTP, as many front ends do.
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tcp.Close() })
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			go func() {
				tc := tls.Server(c, goTLS.TLS)
				tc.SetDeadline(time.Now().Add(5 * time.Second))
				tc.Handshake()
				tc.Close()
			}()
		}
	}()
	resetting := struct{ URL string }{"https://" + tcp.Addr().String()}
	for _, c := range []struct {
		name, base string
		want       string // "" for a run that goes on
	}{
		{"http:// to Go's TLS server", strings.Replace(goTLS.URL, "https://", "http://", 1), "speaks TLS, not plain HTTP: use https://"},
		{"http:// to another TLS server", strings.Replace(resetting.URL, "https://", "http://", 1), "speaks TLS, not plain HTTP: use https://"},
		{"https:// to a plain server", strings.Replace(plain.URL, "http://", "https://", 1), "answers plain HTTP, not TLS: use http://"},
		{"http:// to a plain server", plain.URL, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := runWith(context.Background(), Config{BaseURL: c.base, Token: token, Tags: "@area-create"}, Options{Output: &strings.Builder{}})
			if c.want == "" {
				if err != nil || rep.ExitCode() != 0 {
					t.Fatalf("a plain server over http://: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "--ca-cert") {
				t.Errorf("%v; want ErrUnreachable (exit 2) saying %q, not pointing at --ca-cert", err, c.want)
			}
		})
	}
}

// TestShortTokenSaidOnce: a token too short for a near-miss variant (one
// under the 72 bytes bcrypt reads) leaves that variant not run, which the
// console says once, with the reason, and which changes nothing else:
// the run is still conformant.
func TestShortTokenSaidOnce(t *testing.T) {
	t.Parallel()
	const token = "shorttoken123"
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ref)
	t.Cleanup(srv.Close)
	var out strings.Builder
	rep, err := runWith(context.Background(), Config{BaseURL: srv.URL, Token: token, Format: "progress", Tags: "@AUTH-NEAR-MISS"}, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.Model().WriteText(&text, verdict.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "fewer than the 72"); n != 1 || rep.ExitCode() != 0 {
		t.Errorf("the short token's note is said %d times (exit %d), want once and exit 0:\n%s", n, rep.ExitCode(), text.String())
	}
}
