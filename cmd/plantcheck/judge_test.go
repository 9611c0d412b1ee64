package main

import (
	"cmp"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// failing lists the rules a verdict fails.
func failing(v *verdict.Verdict) []string {
	var out []string
	for _, r := range v.Rules {
		if r.Failures > 0 {
			out = append(out, string(r.ID))
		}
	}
	return out
}

// TestJudgeReachesTheProxysVerdict runs the suite through the proxy, both
// writing HAR files (--har), against the reference and two mutants: judge
// reaches the live proxy's verdict (its exit status, its failing rules)
// from either file, and no output holds the token.
func TestJudgeReachesTheProxysVerdict(t *testing.T) {
	for _, tc := range []struct{ mutant, fails string }{
		{"", ""},
		{"anonymous-allowed", "AUTH-MISSING"},
		{"accept-string-id", "BODY-ID-INTEGER"},
	} {
		t.Run(cmp.Or(tc.mutant, "reference"), func(t *testing.T) {
			token := reference.RandomToken(40)
			ref, err := reference.New(reference.Config{Token: token})
			if err != nil {
				t.Fatal(err)
			}
			var target http.Handler = ref
			if tc.mutant != "" {
				m, ok := mutants.Lookup(tc.mutant)
				if !ok {
					t.Fatalf("no mutant %q", tc.mutant)
				}
				target = m.Wrap(ref, token)
			}
			up, stopUp, err := reference.Loopback(target)
			if err != nil {
				t.Fatal(err)
			}
			defer stopUp()
			dir := t.TempDir()
			proxyHAR, runHAR := filepath.Join(dir, "proxy.har"), filepath.Join(dir, "run.har")
			w, err := har.Create(proxyHAR, "plantcheck", "test")
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(up)
			h, err := proxy.New(proxy.Config{Upstream: u, Timeout: 5 * time.Second, HAR: w})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			served := make(chan error, 1)
			go func() { served <- proxy.Serve(ctx, ln, h, 2*time.Second, 0, nil) }()
			base := "http://" + ln.Addr().String()
			_, err = run.Run(t.Context(), run.Config{BaseURL: base, Token: token, Timeout: 5 * time.Second, Output: io.Discard, Seed: 1, HAR: runHAR})
			cancel()
			<-served
			if _, werr := w.Close(); werr != nil {
				t.Fatal(werr)
			}
			if err != nil {
				t.Fatal(err)
			}
			live := h.Verdict(proxy.Options{})
			if got := strings.Join(failing(live), ","); got != tc.fails {
				t.Fatalf("the live proxy fails %q, want %q", got, tc.fails)
			}
			for _, c := range []struct{ name, file, base string }{
				{"proxy's HAR", proxyHAR, up},
				{"run's HAR", runHAR, base},
			} {
				reports := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
				code, out, errOut := invoke(t, nil, "judge", "--base-url", c.base, "--report-dir", reports, c.file)
				if code != live.ExitCode {
					t.Errorf("%s: judge exit %d, the live proxy's %d\n%s%s", c.name, code, live.ExitCode, out, errOut)
				}
				got, _, err := readSummary(reports)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if !slices.Equal(failing(got), failing(live)) {
					t.Errorf("%s: judge fails %v, the live proxy %v", c.name, failing(got), failing(live))
				}
				if got.Counts.Judged == 0 {
					t.Errorf("%s: judge judged nothing", c.name)
				}
				for _, f := range []string{c.file, filepath.Join(reports, "summary.json"), filepath.Join(reports, "report.html")} {
					b, _ := os.ReadFile(f)
					if strings.Contains(string(b), token) {
						t.Errorf("%s holds the token", f)
					}
				}
				if strings.Contains(out+errOut, token) {
					t.Errorf("%s: judge's output holds the token", c.name)
				}
			}
		})
	}
}
