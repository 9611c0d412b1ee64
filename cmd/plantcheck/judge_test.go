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

	"github.com/plantcheck/plantcheck/internal/config"
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
// writing HAR files (--har), against two mutants: judge reaches the live
// proxy's verdict (its exit status, its failing rules) from either file,
// and no output holds the token. The reference's case, and a third
// mutant's, are TestProxyCertifiesTheSuitesTraffic's, whose one run
// through the proxy proves the same of them.
func TestJudgeReachesTheProxysVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mutant, fails string }{
		{"anonymous-allowed", "AUTH-MISSING"},
		{"accept-string-id", "BODY-ID-INTEGER"},
	} {
		t.Run(cmp.Or(tc.mutant, "reference"), func(t *testing.T) {
			t.Parallel()
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
			h, err := proxy.New(proxy.Config{Upstream: u, MaxJudge: config.DefaultMaxJudge, Timeout: time.Minute, HAR: w})
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
			cfg, err := config.Run{BaseURL: base, Token: token, Timeout: time.Minute, Seed: 1, HAR: runHAR}.Complete()
			if err != nil {
				t.Fatal(err)
			}
			_, err = run.Run(t.Context(), run.Config(cfg), run.Options{Output: io.Discard})
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
			for _, c := range []struct {
				name, file, base string
				fileFirst        bool // the flags after the file, as users type them too
			}{
				{"proxy's HAR", proxyHAR, up, false},
				{"run's HAR", runHAR, base, true},
			} {
				reports := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
				args := []string{"judge", "--base-url", c.base, "--report-dir", reports, c.file}
				if c.fileFirst {
					args = []string{"judge", c.file, "--base-url", c.base, "--report-dir", reports}
				}
				code, out, errOut := invoke(t, nil, args...)
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

// TestJudgeRealRecorder judges the HAR files Chromium wrote (playwright-core's
// recordHar, scripts/record-har.sh) of fetch() calls in a page to the
// reference and to the mutant anonymous-allowed.
func TestJudgeRealRecorder(t *testing.T) {
	t.Parallel()
	const token = "test-token-8c1f2a9d4e7b3605"
	for _, tc := range []struct {
		name  string
		args  []string
		exit  int
		fails []string
		say   []string
	}{
		{"reference", []string{"testdata/chromium-reference.har"}, 0, nil,
			[]string{"9 exchanges: 7 of POST /plants judged", "2 outside the document", "NO VIOLATION SEEN"}},
		{"anonymous-allowed", []string{"testdata/chromium-anonymous-allowed.har"}, 1, []string{"AUTH-MISSING"},
			[]string{"NON-CONFORMANT: the service broke AUTH-MISSING"}},
		{"anonymous-allowed, under its base URL", []string{"--base-url", "http://127.0.0.1:18091", "testdata/chromium-anonymous-allowed.har"}, 1, []string{"AUTH-MISSING"}, nil},
		{"another host", []string{"--base-url", "http://plants.example", "testdata/chromium-anonymous-allowed.har"}, 2, nil,
			[]string{"NOTHING JUDGED, INCOMPLETE"}},
		{"both files, one verdict", []string{"testdata/chromium-reference.har", "testdata/chromium-anonymous-allowed.har"}, 1, []string{"AUTH-MISSING"},
			[]string{"18 exchanges: 14 of POST /plants judged"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := invoke(t, nil, append([]string{"judge", "--report-dir", dir}, tc.args...)...)
			if code != tc.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.exit, out, errOut)
			}
			for _, s := range tc.say {
				if !strings.Contains(out, s) {
					t.Errorf("the verdict does not say %q:\n%s", s, out)
				}
			}
			v, _, err := readSummary(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(failing(v), tc.fails) {
				t.Errorf("fails %v, want %v", failing(v), tc.fails)
			}
			if v.Driver != verdict.Proxy {
				t.Errorf("driver %q: judge's verdict is the proxy's", v.Driver)
			}
			files, _ := os.ReadDir(dir)
			texts := []string{out, errOut}
			for _, f := range files {
				b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
				texts = append(texts, string(b))
			}
			for _, s := range texts {
				// The recording holds the test token base64-encoded in a
				// Basic credential: hidden like any other.
				if strings.Contains(s, token) || strings.Contains(s, "dTp0ZXN0LXRva2Vu") {
					t.Error("an output holds the recording's credential")
				}
			}
		})
	}
}

// TestJudgeBadInput: a file judge cannot read as HAR is refused with the
// reason, exit status 2, never a verdict.
func TestJudgeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.har", `{"log":{"entries":[`+strings.Repeat(" ", 4096)+`]}}`)
	for _, tc := range []struct {
		name string
		args []string
		say  string
	}{
		{"no file", nil, "no recording: give one or more HAR files"},
		{"missing", []string{filepath.Join(dir, "none.har")}, "no such file"},
		{"not JSON", []string{write("a.har", "GET / HTTP/1.1\r\n")}, "not a HAR file"},
		{"a JSON array", []string{write("b.har", `[{"log":{}}]`)}, `not a HAR file: "[" where "{" is expected`},
		{"no log", []string{write("c.har", `{"entries":[]}`)}, "not a HAR file: no log.entries"},
		{"the proxy's event log", []string{write("d.jsonl", `{"time":"2026-11-25T10:00:00Z","rule":"AUTH-MISSING","side":"server","status":200,"summary":"x"}`+"\n")},
			"event log"},
		{"an entry that is not one", []string{write("e.har", `{"log":{"entries":[{"request":"POST"}]}}`)}, "entry 1"},
		{"a relative URL", []string{write("f.har", `{"log":{"entries":[{"request":{"method":"POST","url":"/plants"},"response":{"status":200}}]}}`)}, "not an absolute URL"},
		{"cut off", []string{write("g.har", `{"log":{"entries":[{"request":{"method":"POST"`)}, "not a HAR file"},
		{"no entries", []string{write("h.har", `{"log":{"version":"1.2","entries":[]}}`)}, "the recording holds no exchange"},
		{"past --max-file", []string{"--max-file", "1024", big}, "too large: 4118 bytes, more than 1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := invoke(t, nil, append([]string{"judge"}, tc.args...)...)
			if code != exitCannotRun {
				t.Errorf("exit %d, want %d", code, exitCannotRun)
			}
			if !strings.Contains(errOut, tc.say) {
				t.Errorf("stderr %q does not say %q", errOut, tc.say)
			}
			if strings.Contains(out, "VERDICT") {
				t.Errorf("a verdict was printed:\n%s", out)
			}
		})
	}
}
