package run

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// routeFor is the route a run with cfg takes to base.
func routeFor(t *testing.T, cfg Config, base string) route {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cfg.route(u, os.Getenv)
	if err != nil {
		t.Fatalf("route to %s: %v", base, err)
	}
	return rt
}

// TestProxyRoute: the proxy a run takes, decided by the proxy function its
// client uses, is said with where it was set, or as none with the reason
// a variable that is set was not used; credentials are never written, and
// a curl reproduction goes the way the run went.
func TestProxyRoute(t *testing.T) {
	t.Parallel()
	const userinfoWord = `"http://${PLANTCHECK_PROXY_USERINFO}@"'proxy.example:3128'`
	tests := []struct {
		name  string
		proxy string // --proxy
		env   map[string]string
		base  string
		says  string
		curl  string // the curl flags, joined
		err   error
	}{
		{name: "nothing set", base: "http://127.0.0.1:8080", says: "none"},
		{
			name: "HTTP_PROXY and a loopback address", env: map[string]string{"HTTP_PROXY": "http://127.0.0.1:1"}, base: "http://127.0.0.1:8080",
			says: "none (HTTP_PROXY is set, but Go never proxies a loopback target such as 127.0.0.1 or localhost)", curl: "--noproxy '*'",
		},
		{
			name: "http_proxy and localhost", env: map[string]string{"http_proxy": "http://proxy.example:3128"}, base: "http://localhost:8080/api",
			says: "none (http_proxy is set, but Go never proxies a loopback target such as 127.0.0.1 or localhost)", curl: "--noproxy '*'",
		},
		{
			name: "HTTPS_PROXY and IPv6 loopback", env: map[string]string{"HTTPS_PROXY": "http://proxy.example:3128"}, base: "https://[::1]:8443",
			says: "none (HTTPS_PROXY is set, but Go never proxies a loopback target such as 127.0.0.1 or localhost)", curl: "--noproxy '*'",
		},
		{
			name: "HTTPS_PROXY and a named https target", env: map[string]string{"HTTPS_PROXY": "http://proxy.example:3128"}, base: "https://plants.example.com/v1",
			says: "http://proxy.example:3128 (from HTTPS_PROXY)", curl: "--proxy 'http://proxy.example:3128'",
		},
		{
			name: "HTTP_PROXY alone and an https target", env: map[string]string{"HTTP_PROXY": "http://proxy.example:3128"}, base: "https://plants.example.com",
			says: "none (HTTP_PROXY is set, but Go sends an https target only through HTTPS_PROXY)", curl: "--noproxy '*'",
		},
		{
			name: "NO_PROXY names the target", env: map[string]string{"HTTP_PROXY": "http://proxy.example:3128", "NO_PROXY": ".example.com"}, base: "http://plants.example.com",
			says: "none (HTTP_PROXY is set, but NO_PROXY names the target's host)", curl: "--noproxy '*'",
		},
		{
			name: "no_proxy names another host", env: map[string]string{"HTTP_PROXY": "http://proxy.example:3128", "no_proxy": "other.example"}, base: "http://plants.example.com",
			says: "http://proxy.example:3128 (from HTTP_PROXY)", curl: "--proxy 'http://proxy.example:3128'",
		},
		{
			name: "the upper case first, as net/http reads", env: map[string]string{"HTTP_PROXY": "http://upper.example:1", "http_proxy": "http://lower.example:2"}, base: "http://plants.test",
			says: "http://upper.example:1 (from HTTP_PROXY)", curl: "--proxy 'http://upper.example:1'",
		},
		{
			name: "host and port without a scheme", env: map[string]string{"HTTP_PROXY": "proxy.example:3128"}, base: "http://plants.test",
			says: "http://proxy.example:3128 (from HTTP_PROXY)", curl: "--proxy 'http://proxy.example:3128'",
		},
		{
			name: "credentials in HTTP_PROXY", env: map[string]string{"HTTP_PROXY": "http://alice:s3cret@proxy.example:3128"}, base: "http://plants.test",
			says: "http://<redacted>@proxy.example:3128 (from HTTP_PROXY)", curl: "--proxy " + userinfoWord,
		},
		{
			name: "a value Go cannot read", env: map[string]string{"HTTP_PROXY": "%zz"}, base: "http://plants.test",
			says: "none (HTTP_PROXY is set, but is not a proxy URL Go can read, so Go ignores it)", curl: "--noproxy '*'",
		},
		{
			name: "curl's own variable only", env: map[string]string{"ALL_PROXY": "socks5://proxy.example:1080"}, base: "http://plants.test",
			says: "none", curl: "--noproxy '*'",
		},
		{
			name: "--proxy, even to a loopback target", proxy: "http://127.0.0.1:3128", env: map[string]string{"HTTP_PROXY": "http://proxy.example:1"}, base: "http://127.0.0.1:8080",
			says: "http://127.0.0.1:3128 (from --proxy)", curl: "--proxy 'http://127.0.0.1:3128'",
		},
		{
			name: "--proxy with credentials", proxy: "http://alice:s3cret@proxy.example:3128", base: "http://plants.test",
			says: "http://<redacted>@proxy.example:3128 (from --proxy)", curl: "--proxy " + userinfoWord,
		},
		{name: "--proxy not a proxy URL", proxy: "ftp://alice:s3cret@proxy.example:21", base: "http://plants.test", err: ErrConfig},
		{name: "--proxy that does not parse", proxy: "http://alice:s3cret@proxy example:3128", base: "http://plants.test", err: ErrConfig},
		{name: "HTTP_PROXY in a CGI program", env: map[string]string{"HTTP_PROXY": "http://proxy.example:3128", "REQUEST_METHOD": "GET"}, base: "http://plants.test", err: ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Proxy: tt.proxy}
			u, _ := url.Parse(tt.base)
			var rt route
			var err error
			if tt.err != nil && tt.proxy != "" {
				// A --proxy that is no proxy URL is the configuration's to
				// refuse (config.Run.Validate), before any route.
				full := cfg
				full.BaseURL, full.Token = tt.base, "t0ken-of-the-test"
				(*config.Run)(&full).Defaults()
				err = (*config.Run)(&full).Validate()
			} else {
				rt, err = cfg.route(u, func(k string) string { return tt.env[k] })
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) || strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("err = %v; want %v, without the password", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rt.says != tt.says {
				t.Errorf("says %q\nwant %q", rt.says, tt.says)
			}
			if got := strings.Join(rt.curlFlags(), " "); got != tt.curl {
				t.Errorf("curl flags %q, want %q", got, tt.curl)
			}
			// The choice is the client's own: its proxy function agrees.
			p, err := rt.proxy(&http.Request{URL: u})
			if err != nil || (p == nil) != (rt.via == nil) || p != nil && p.String() != rt.via.String() {
				t.Errorf("the client's proxy function gives %v, %v; the route says %v", p, err, rt.via)
			}
			if rerun := strings.Join(cfg.rerunFlags(rt), " "); strings.Contains(rerun+rt.says, "s3cret") {
				t.Errorf("the password is written: %q, %q", rerun, rt.says)
			}
		})
	}
}

// TestProxyCredentialsReadFromAVariable: the proxy word a reproduction or a
// rerun writes is one shell word that gives the URL back whole, its
// user:password read from PLANTCHECK_PROXY_USERINFO.
func TestProxyCredentialsReadFromAVariable(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("http://alice:s3cret@proxy.example:3128/x")
	cmd := exec.Command("sh", "-c", "printf '%s' "+shellProxy(u))
	cmd.Env = append(os.Environ(), shell.ProxyUserinfoVar+"=alice:s3cret")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	if got, want := string(out), u.String(); got != want {
		t.Errorf("the shell reads %q, want %q", got, want)
	}
}

// forwardProxy is a plain HTTP forward proxy on loopback: it forwards a
// request for plants.test to target (a name only it resolves) and refuses
// any other, or a request without the credentials it wants (none: any).
func forwardProxy(t *testing.T, target, user, password string) (string, *atomic.Int32) {
	t.Helper()
	targetURL, _ := url.Parse(target)
	var seen atomic.Int32
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(targetURL) }}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Host != "plants.test":
			http.Error(w, "proxy: unknown host", http.StatusBadGateway)
		case user != "" && r.Header.Get("Proxy-Authorization") != want:
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			http.Error(w, "proxy: credentials wanted", http.StatusProxyAuthRequired)
		default:
			seen.Add(1)
			rp.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &seen
}

// deadAddress is a loopback address nothing listens on.
func deadAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestProxyInTheVerdict: real runs with the proxy variables set. The
// verdict (console, summary.json, summary.md, report.html) names the
// proxy the requests went through, or says none and why: HTTP_PROXY
// pointed at a dead proxy leaves a loopback target reached directly, as
// Go never proxies loopback, and says so; a target named by a host only a
// forward proxy resolves goes through it, its credentials never written;
// a dead proxy in front of such a target is exit 2, never conformant.
func TestProxyInTheVerdict(t *testing.T) {
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "REQUEST_METHOD"} {
		t.Setenv(name, "")
	}
	ref, token := referenceHandler(t)
	inner := httptest.NewServer(ref)
	t.Cleanup(inner.Close)
	fwd, seen := forwardProxy(t, inner.URL, "alice", "s3cret")
	fwdURL, _ := url.Parse(fwd)
	dead := deadAddress(t)

	tests := []struct {
		name      string
		httpProxy string
		base      string
		says      string
		proxied   bool
		unreached bool // the run cannot be made: exit 2
	}{
		{name: "no proxy variable", base: inner.URL, says: "none"},
		{
			name: "a dead HTTP_PROXY and a loopback target", httpProxy: "http://" + dead, base: inner.URL,
			says: "none (HTTP_PROXY is set, but Go never proxies a loopback target such as 127.0.0.1 or localhost)",
		},
		{
			name: "HTTP_PROXY to a forward proxy", httpProxy: "http://alice:s3cret@" + fwdURL.Host, base: "http://plants.test/",
			says: "http://<redacted>@" + fwdURL.Host + " (from HTTP_PROXY)", proxied: true,
		},
		{name: "a dead HTTP_PROXY and a named target", httpProxy: "http://" + dead, base: "http://plants.test/", unreached: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HTTP_PROXY", tt.httpProxy)
			before := seen.Load()
			dir := t.TempDir()
			var console strings.Builder
			rep, err := runWith(context.Background(), Config{BaseURL: tt.base, Token: token, ReportDir: dir, Tags: "@CREATE-200"}, Options{Output: &console})
			if tt.unreached {
				if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "the proxy "+dead+" (from HTTP_PROXY)") {
					t.Fatalf("err = %v; want ErrUnreachable (exit 2) naming the proxy and HTTP_PROXY", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rep.WriteVerdict(&console)
			if code := rep.ExitCode(); code != 0 {
				t.Fatalf("exit %d, want 0\n%s", code, console.String())
			}
			if got := seen.Load() > before; got != tt.proxied {
				t.Errorf("through the forward proxy: %v, want %v", got, tt.proxied)
			}
			files := outputs(t, console.String(), dir)
			if !strings.Contains(files["console"], "\nproxy:  "+tt.says+"\n") {
				t.Errorf("the console does not say %q:\n%s", tt.says, files["console"])
			}
			var summary verdict.Verdict
			if err := json.Unmarshal([]byte(files[SummaryJSON]), &summary); err != nil || summary.Config.Proxy != tt.says {
				t.Errorf("summary.json config.proxy = %q (%v), want %q", summary.Config.Proxy, err, tt.says)
			}
			if err := verdict.CheckSummary([]byte(files[SummaryJSON])); err != nil {
				t.Errorf("summary.json does not follow the schema: %v", err)
			}
			if !strings.Contains(files[SummaryMD], "| Proxy | `"+tt.says+"` |") {
				t.Errorf("summary.md does not say %q", tt.says)
			}
			if !strings.Contains(files[ReportHTML], "<dt>Proxy</dt><dd>"+html.EscapeString(tt.says)+"</dd>") {
				t.Errorf("report.html does not say %q", tt.says)
			}
			for file, text := range files {
				if strings.Contains(text, "s3cret") {
					t.Errorf("%s holds the proxy's password", file)
				}
			}
		})
	}
}

// TestProxyLeftOutOfTheProxysVerdict: plantcheck proxy reaches its
// upstream directly; its verdict leaves config.proxy empty, and says
// nothing of a proxy.
func TestProxyLeftOutOfTheProxysVerdict(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "r")
	v := &verdict.Verdict{Driver: verdict.Proxy, Scope: "traffic"}
	v.Stamp("Plant Store API", "1.0.0")
	v.Finish()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	v.WriteText(&text, verdict.TextOptions{})
	files := outputs(t, text.String(), dir)
	if err := verdict.CheckSummary([]byte(files[SummaryJSON])); err != nil || !strings.Contains(files[SummaryJSON], `"proxy": ""`) {
		t.Errorf("the proxy's summary.json: %v; want config.proxy empty", err)
	}
	for _, file := range []string{"console", SummaryMD, ReportHTML} {
		if strings.Contains(files[file], "proxy:  ") || strings.Contains(files[file], "| Proxy |") || strings.Contains(files[file], "<dt>Proxy</dt>") {
			t.Errorf("%s says a proxy", file)
		}
	}
}
