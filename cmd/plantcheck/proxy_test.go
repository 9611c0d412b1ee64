package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/testcert"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// startProxyCmd runs 'plantcheck proxy' with args until the returned stop
// is called, which cancels it as SIGTERM would and returns its exit status
// and streams.
func startProxyCmd(t *testing.T, env map[string]string, args ...string) (base string, stop func() (int, string, string)) {
	t.Helper()
	pr, pw := io.Pipe()
	var stdout, log bytes.Buffer
	stderr := io.MultiWriter(pw, &lockedWriter{w: &log})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- dispatch(ctx, cli{stdout: &stdout, stderr: stderr, getenv: func(k string) string { return env[k] }}, append([]string{"proxy"}, args...))
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	addrRE := regexp.MustCompile(`listening on (http://\S+),`)
	for base == "" && lines.Scan() {
		if m := addrRE.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	go io.Copy(io.Discard, pr)
	stop = func() (int, string, string) {
		cancel()
		select {
		case code := <-done:
			return code, stdout.String(), log.String()
		case <-time.After(20 * time.Second):
			t.Fatal("proxy did not stop within 20s of its context ending")
		}
		return 0, "", ""
	}
	if base == "" {
		code, out, errOut := stop()
		t.Fatalf("proxy printed no address (exit %d)\n%s\n%s", code, out, errOut)
	}
	return base, stop
}

// TestProxyCertifiesTheSuitesTraffic runs the whole suite through the proxy
// against the reference and against a mutant: through the proxy the suite
// passes the reference (the proxy is transparent) and the proxy's own
// verdict on the traffic agrees; against the mutant both fail it. The
// token never shows in any output or report.
//
// It drives --har through the command line of proxy and run as well: each
// writes its HAR, and judge reaches the live proxy's verdict (its exit
// status, its failing rules, its verdict line) from either file, having
// judged some exchanges; no file, report or output of judge holds the
// token (one run through the proxy serves both proofs; the reference's
// case of TestJudgeReachesTheProxysVerdict is this one).
func TestProxyCertifiesTheSuitesTraffic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mutant   string
		wantCode int
		want     []string // in the proxy's verdict
		har      string   // the verdict line judge prints from either HAR
	}{
		{"", 0, []string{`(?m)^VERDICT: NO VIOLATION SEEN`, `(?m)^CREATE-NAME +MUST +pass +[1-9]\d* +`, `(?m)^AUTH-MISSING +MUST +pass +[1-9]\d* +`,
			`AUTH-UNKNOWN \(MUST\)(, [A-Z-]+ \((MUST|SHOULD)\))*: the proxy does not know which tokens the service issued`, `Client-side: \d+ requests broke the document`}, "VERDICT: NO VIOLATION SEEN"},
		{"upper-case-name", 1, []string{`(?m)^VERDICT: NON-CONFORMANT: the service broke CREATE-NAME`, `(?m)^  CREATE-NAME \(MUST\), [1-9]\d* failures?: `,
			`reproduce: +curl -sS -i -X POST`}, "VERDICT: NON-CONFORMANT: the service broke CREATE-NAME"},
	}
	for _, tc := range cases {
		name := tc.mutant
		if name == "" {
			name = "reference"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			upstream := target(t, tc.mutant)
			reports := t.TempDir()
			hars := t.TempDir()
			proxyHAR, runHAR := filepath.Join(hars, "proxy.har"), filepath.Join(hars, "run.har")
			base, stop := startProxyCmd(t, nil, "--addr", "127.0.0.1:0", "--upstream", upstream, "--report-dir", reports, "--har", proxyHAR)
			runCode, runOut, runErr := invoke(t, map[string]string{config.EnvToken: canary}, "run", "--har", runHAR, "--base-url", base)
			code, out, errOut := stop()
			if runCode != tc.wantCode {
				t.Errorf("run through the proxy: exit %d, want %d\n%s\n%s", runCode, tc.wantCode, runOut, runErr)
			}
			if code != tc.wantCode {
				t.Errorf("proxy: exit %d, want %d\n%s\n%s", code, tc.wantCode, out, errOut)
			}
			for _, want := range tc.want {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("the proxy's verdict lacks %s:\n%s", want, out)
				}
			}
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "VERDICT: ") {
				t.Errorf("the last line is %q, want the verdict", lines[len(lines)-1])
			}
			everything := out + errOut + runOut + runErr
			for _, name := range []string{"summary.json", "summary.md", "report.html", "badge.svg", "junit.xml"} {
				b, err := os.ReadFile(filepath.Join(reports, name))
				if err != nil {
					t.Errorf("report %s: %v", name, err)
				}
				everything += string(b)
			}
			if strings.Contains(everything, canary) {
				t.Errorf("the token shows in an output or a report")
			}
			live, _, err := readSummary(reports)
			if err != nil {
				t.Fatalf("the proxy's summary: %v", err)
			}
			for _, c := range []struct {
				file, base string
				fileFirst  bool // the flags after the file, as users type them too
			}{{proxyHAR, upstream, false}, {runHAR, base, true}} {
				name, judged := filepath.Base(c.file), filepath.Join(hars, "judged-"+filepath.Base(c.file))
				args := []string{"judge", "--base-url", c.base, "--report-dir", judged, c.file}
				if c.fileFirst {
					args = []string{"judge", c.file, "--base-url", c.base, "--report-dir", judged}
				}
				jcode, jout, jerr := invoke(t, nil, args...)
				if jcode != code || !strings.Contains(jout, tc.har) {
					t.Errorf("judge %s: exit %d, the live proxy's %d; want %q\n%s%s", name, jcode, code, tc.har, jout, jerr)
				}
				got, _, err := readSummary(judged)
				if err != nil {
					t.Fatalf("judge %s: %v", name, err)
				}
				if !slices.Equal(failing(got), failing(live)) {
					t.Errorf("judge %s fails %v, the live proxy %v", name, failing(got), failing(live))
				}
				if got.Counts.Judged == 0 {
					t.Errorf("judge %s judged nothing", name)
				}
				written := jout + jerr
				for _, f := range []string{c.file, filepath.Join(judged, verdict.SummaryJSON), filepath.Join(judged, verdict.ReportHTML)} {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Error(err)
					}
					written += string(b)
				}
				if strings.Contains(written, canary) {
					t.Errorf("judge %s: the HAR, judge's reports or its output hold the token", name)
				}
			}
		})
	}
}

// TestProxyCannotRun: bad flags and addresses are exit 2, saying why.
func TestProxyCannotRun(t *testing.T) {
	t.Parallel()
	busy := strings.TrimPrefix(target(t, ""), "http://")
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"no upstream", nil, `no upstream: give --upstream URL`},
		{"an upstream that is not http", []string{"--upstream", "ftp://example.com"}, `must be an http or https URL`},
		{"an upstream with a query", []string{"--upstream", "http://example.com/?a=1"}, `must not carry credentials, a query`},
		{"a busy address", []string{"--upstream", "http://" + busy, "--addr", busy}, `address already in use`},
		{"a bad time limit", []string{"--upstream", "http://" + busy, "--timeout", "0s"}, `--timeout 0s: it must be more than 0 (such as 2s or 500ms)`},
		{"a stray argument", []string{"--upstream", "http://" + busy, "extra"}, `unexpected argument`},
		{"a certificate without its key", []string{"--upstream", "https://" + busy, "--cert", "client.pem"}, `--cert and --key go together`},
		{"a CA file that is not PEM", []string{"--upstream", "https://" + busy, "--ca-cert", notPEM}, `holds no PEM certificate`},
		{"a CA file that is not there", []string{"--upstream", "https://" + busy, "--ca-cert", filepath.Join(t.TempDir(), "none.pem")}, `CA certificate:`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, nil, append([]string{"proxy"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q\n%s", code, stderr, tc.wantStderr, stdout)
			}
		})
	}
}

// TestProxyUpstreamFromTheEnvironment: PLANTCHECK_UPSTREAM names the
// upstream when --upstream does not; with no traffic the verdict says
// nothing was judged, exit 0.
func TestProxyUpstreamFromTheEnvironment(t *testing.T) {
	t.Parallel()
	upstream := target(t, "")
	_, stop := startProxyCmd(t, map[string]string{config.EnvUpstream: upstream}, "--addr", "127.0.0.1:0")
	code, out, errOut := stop()
	if code != 0 || !strings.Contains(out, "VERDICT: NOTHING JUDGED") || !strings.Contains(errOut, "forwarding to "+upstream) {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestProxyUpstreamDownTheWholeTime: an upstream that never answered gets
// every request the proxy's own 502; the proxy judged nothing although it
// had traffic, and says so with exit 2, as run does when it can judge
// nothing (issue 26). With no traffic at all it claims nothing: exit 0.
func TestProxyUpstreamDownTheWholeTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		requests int
		wantCode int
		want     string
	}{
		{"with traffic", 3, 2, "VERDICT: NOTHING JUDGED, INCOMPLETE: no exchange of POST /plants was judged (3 exchanges in all)"},
		{"without traffic", 0, 0, "VERDICT: NOTHING JUDGED: no exchange passed through"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reports := t.TempDir()
			base, stop := startProxyCmd(t, nil, "--addr", "127.0.0.1:0", "--upstream", closedURL(t), "--report-dir", reports, "--timeout", "2s")
			for i := range tc.requests {
				req, _ := http.NewRequest(http.MethodPost, base+"/plants", strings.NewReader(`{"id":`+strconv.Itoa(i+1)+`,"name":"Fern"}`))
				req.Header.Set("Authorization", "Bearer "+canary)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadGateway {
					t.Errorf("status %d, want the proxy's own 502", resp.StatusCode)
				}
			}
			code, out, errOut := stop()
			if code != tc.wantCode || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d; want %d and %q\n%s\n%s", code, tc.wantCode, tc.want, out, errOut)
			}
			b, err := os.ReadFile(filepath.Join(reports, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if want := `"exitCode": ` + strconv.Itoa(tc.wantCode); !strings.Contains(string(b), want) {
				t.Errorf("summary.json lacks %s:\n%s", want, b)
			}
		})
	}
}

// closedURL is the URL of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// TestProxyHTTPSUpstream: --ca-cert, --cert and --key reach an https
// upstream on loopback that asks for a client certificate; without --cert
// every exchange gets the proxy's own 502 and nothing is judged.
func TestProxyHTTPSUpstream(t *testing.T) {
	t.Parallel()
	certs := testcert.New(t, t.TempDir())
	ref, err := reference.New(reference.Config{Token: canary})
	if err != nil {
		t.Fatal(err)
	}
	upstream := certs.Serve(t, ref)
	cases := []struct {
		name     string
		args     []string
		status   int
		wantCode int
		verdict  string
	}{
		{"with --ca-cert, --cert and --key", []string{"--ca-cert", certs.CAFile, "--cert", certs.CertFile, "--key", certs.KeyFile}, 200, 0, "VERDICT: NO VIOLATION SEEN"},
		// Traffic came and none of it could be judged: incomplete, never green.
		{"without --cert and --key", []string{"--ca-cert", certs.CAFile}, http.StatusBadGateway, 2, "VERDICT: NOTHING JUDGED"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, stop := startProxyCmd(t, nil, append([]string{"--addr", "127.0.0.1:0", "--upstream", upstream}, tc.args...)...)
			req, _ := http.NewRequest(http.MethodPost, base+"/plants", strings.NewReader(`{"id":`+strconv.Itoa(i+1)+`,"name":"Fern"}`))
			req.Header.Set("Authorization", "Bearer "+canary)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			code, out, errOut := stop()
			if resp.StatusCode != tc.status || code != tc.wantCode || !strings.Contains(out, tc.verdict) {
				t.Errorf("status %d, exit %d; want %d, exit %d and %q\n%s\n%s", resp.StatusCode, code, tc.status, tc.wantCode, tc.verdict, out, errOut)
			}
		})
	}
}

// TestProxyConfigFile: the proxy reads its own keys from --config, with
// the command's did-you-mean and refusals, and the file's settings are the
// ones used (a busy address from the file fails as one on the command
// line does).
func TestProxyConfigFile(t *testing.T) {
	t.Parallel()
	busy := strings.TrimPrefix(target(t, ""), "http://")
	dir := t.TempDir()
	file := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"the file's address is used", []string{"--config", file("busy.yaml", "upstream: http://"+busy+"\naddr: "+busy+"\n")}, `address already in use`},
		{"the file's upstream is validated", []string{"--config", file("ftp.yaml", "upstream: ftp://example.com\n")}, `must be an http or https URL`},
		{"the command line wins over the file", []string{"--config", file("ftp2.yaml", "upstream: ftp://example.com\n"), "--upstream", "http://" + busy, "--timeout", "0s"}, `--timeout 0s: it must be more than 0 (such as 2s or 500ms)`},
		{"a mistyped key", []string{"--config", file("typo.yaml", "upstrem: http://example.com\n")}, `unknown key "upstrem"; did you mean upstream?`},
		{"a run key", []string{"--config", file("run.yaml", "base-url: http://example.com\n")}, `unknown key "base-url"`},
		{"a duration without its unit", []string{"--config", file("bare.yaml", "upstream: http://example.com\ntimeout: 10\n")}, `a duration needs its unit`},
		{"a file that is not there", []string{"--config", filepath.Join(dir, "none.yaml")}, `config: open`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, nil, append([]string{"proxy"}, tc.args...)...)
			if code != 2 || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q\n%s", code, stderr, tc.wantStderr, stdout)
			}
		})
	}
}
