package run

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// dyingTarget serves the reference for five requests, then stops
// listening: later scenarios cannot be judged (errors, not failures). Each
// request comes on its own connection, and the listener is closed while the
// fifth is handled, so that the fifth answer is whole and the sixth request
// is refused (one request at a time: --concurrency 1): closing connections in flight would break an answer instead,
// a failure of the target rather than an error of the run.
func dyingTarget(t *testing.T, token string) string {
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 5 {
			srv.Listener.Close()
		}
		ref.ServeHTTP(w, r)
	}))
	srv.Config.SetKeepAlivesEnabled(false)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestReportFiles(t *testing.T) {
	t.Parallel()
	scs, err := features.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	auth, err := features.ParseTags("@area-auth")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		shared     string // the shared run read (shared), or "" for a run of cfg
		cfg        Config
		wantStatus string
		wantBadge  string
		wantJUnit  []string // regular expressions
	}{
		{"certified", sharedReference, Config{}, "certified conformant", "conformant",
			[]string{`tests="` + strconv.Itoa(len(scs)) + `" failures="0" errors="0"`, `classname="AUTH-MISSING"`}},
		{"non-conformant", "drop-tag", Config{}, "non-conformant", "non-conformant",
			[]string{`<testsuite name="CREATE-TAG \(MUST\)" tests="\d+" failures="[1-9]\d*" errors="0"`,
				`<testcase name="CREATE-TAG: The Plant record carries the tag that was sent" classname="CREATE-TAG"[^>]*>\s*<failure message="failure \d+\) CREATE-TAG: expected tag`,
				// A MUST breach that another rule's scenario met fails that
				// scenario's case, never a case of its own.
				`<testcase name="CREATE-200: [^"]*" classname="CREATE-200"[^>]*>\s*<failure message="failure \d+\) CREATE-TAG: expected tag[^"]*" type="must">[^<]*found broken by this scenario: CREATE-TAG \(MUST\)`,
				`reproduce: +curl`}},
		{"partial", "", Config{Tags: "@area-auth"}, "partial: conformant to the rules that ran", "partial",
			[]string{`tests="` + strconv.Itoa(len(auth.Select(scs))) + `" failures="0"`, `\(partial: conformant to the rules that ran\)`}},
		{"harness errors", "", Config{BaseURL: dyingTarget(t, "t0ken-dying"), Token: "t0ken-dying", Concurrency: 1}, "incomplete", "incomplete",
			[]string{`<error message="failure \d+\) plantcheck could not judge this scenario: the target cannot be reached`, `type="harness"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rep *Report
			var dir string
			if tt.shared != "" {
				rep, _, dir = shared(t, tt.shared)
			} else {
				dir = filepath.Join(t.TempDir(), "reports", "nested")
				tt.cfg.ReportDir = dir
				if tt.cfg.BaseURL == "" {
					tt.cfg = withReference(t, tt.cfg)
				}
				var err error
				if rep, err = runWith(context.Background(), tt.cfg, Options{Output: io.Discard}); err != nil {
					t.Fatalf("Run: %v", err)
				}
			}
			if got := rep.Status(); got != tt.wantStatus {
				t.Errorf("Status() = %q, want %q", got, tt.wantStatus)
			}
			read := func(name string) []byte {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}

			var s struct {
				Plantcheck struct{ Version string }
				Spec       struct{ Version, SHA256 string }
				Features   struct {
					SHA256    string
					Scenarios int
				}
				Config struct {
					Token, Timeout, Tags string
				}
				Seed      uint64
				Scope     string
				Status    string
				ExitCode  int
				Rules     []struct{ ID, Outcome string }
				Scenarios []struct {
					Name, Rule, Outcome string
					Failure             int
				}
				Failures []struct {
					Rerun    string
					Evidence []struct{ Reproduce, Expected string }
				}
			}
			if err := json.Unmarshal(read(SummaryJSON), &s); err != nil {
				t.Fatalf("summary.json: %v", err)
			}
			if s.Plantcheck.Version == "" || s.Spec.Version != "1.0.0" || len(s.Spec.SHA256) != 64 || len(s.Features.SHA256) != 64 {
				t.Errorf("summary.json identity = %+v %+v %+v", s.Plantcheck, s.Spec, s.Features)
			}
			if s.Status != tt.wantStatus || s.ExitCode != rep.ExitCode() || s.Seed != rep.Config.Seed || s.Seed == 0 {
				t.Errorf("summary.json status %q exit %d seed %d", s.Status, s.ExitCode, s.Seed)
			}
			if wantScope := map[bool]string{true: "partial", false: "certified"}[tt.cfg.Tags != ""]; s.Scope != wantScope {
				t.Errorf("scope = %q, want %q", s.Scope, wantScope)
			}
			if len(s.Rules) != len(rules.Catalog) || len(s.Scenarios) != rep.Model().Counts.Scenarios {
				t.Errorf("summary.json has %d rules and %d scenarios", len(s.Rules), len(s.Scenarios))
			}
			if !strings.HasPrefix(s.Config.Token, "<") || s.Config.Timeout != "10s" {
				t.Errorf("config = %+v", s.Config)
			}
			for _, sc := range s.Scenarios {
				if sc.Outcome != "fail" {
					continue
				}
				if sc.Failure < 1 || sc.Failure > len(s.Failures) {
					t.Errorf("failed scenario %q has no failure block: %+v", sc.Name, sc)
					continue
				}
				f := s.Failures[sc.Failure-1]
				if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].Reproduce, "${PLANTCHECK_TOKEN}") || !strings.Contains(f.Rerun, "--tags '@"+sc.Rule+"'") {
					t.Errorf("failed scenario %q lacks its reproduction: %+v", sc.Name, f)
				}
			}

			md := string(read(SummaryMD))
			if !strings.HasPrefix(md, "# plantcheck: "+tt.wantStatus+"\n") || strings.Count(md, "\n| ") < len(rules.Catalog) {
				t.Errorf("summary.md:\n%s", md)
			}

			html := string(read(ReportHTML))
			for _, bad := range []string{`src="http`, `href="http`, `<link`, `<script`, `@import`, `url(`} {
				if strings.Contains(html, bad) {
					t.Errorf("report.html refers to an external asset (%s)", bad)
				}
			}
			if !strings.Contains(html, `id="verdict"`) || !strings.Contains(html, "<h1>"+tt.wantStatus+"</h1>") {
				t.Errorf("report.html lacks the verdict at the top")
			}
			if got := strings.Count(html, `<tr class="`) - rep.Model().Counts.Scenarios; got != len(rules.Catalog) {
				t.Errorf("report.html has %d rule rows, want %d", got, len(rules.Catalog))
			}
			failures := strings.Count(html, `<section class="failure`)
			if want := rep.Model().Counts.Failed + rep.Model().Counts.Errors; failures != want {
				t.Errorf("report.html has %d failure sections, want %d", failures, want)
			}
			if rep.Model().Counts.Failed > 0 && (!strings.Contains(html, `<pre class="curl">`) || !strings.Contains(html, `<pre class="rerun">`)) {
				t.Errorf("report.html failures lack their reproduction")
			}

			badge := read(BadgeSVG)
			if err := xml.Unmarshal(badge, new(struct{})); err != nil {
				t.Errorf("badge.svg is not XML: %v", err)
			}
			if !bytes.Contains(badge, []byte(">"+tt.wantBadge+"</text>")) || !bytes.Contains(badge, []byte("Plant Store API 1.0.0")) {
				t.Errorf("badge.svg = %s", badge)
			}

			junit := read(JUnitXML)
			if err := xml.Unmarshal(junit, new(struct{})); err != nil {
				t.Errorf("junit.xml is not XML: %v", err)
			}
			for _, re := range tt.wantJUnit {
				if !regexp.MustCompile(re).Match(junit) {
					t.Errorf("junit.xml lacks %s:\n%.3000s", re, junit)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "cucumber.json")); err != nil {
				t.Errorf("cucumber.json: %v", err)
			}
		})
	}
}
