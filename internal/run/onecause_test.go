package run

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// everyError answers each refusal of the reference (400) with status and,
// when media is not "", that media type and a page of its own: a server
// whose errors all go through one misconfigured handler.
func everyError(status int, media string) func(http.Handler, string) http.Handler {
	return func(ref http.Handler, _ string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			if rec.Code != http.StatusBadRequest {
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			body := rec.Body.Bytes()
			if media != "" {
				w.Header().Set("Content-Type", media)
				body = []byte("<html><body>Something went wrong</body></html>\n")
			}
			w.WriteHeader(status)
			w.Write(body)
		})
	}
}

// blockHeading is a failure block's first line on the console: its number,
// then the rules it broke, the block's own first.
var blockHeading = regexp.MustCompile(`(?m)^(\d+)\) ([A-Z0-9-]+) \((MUST|SHOULD|OPEN)\)`)

// shrunk is what a generated case says of its shrinking.
var shrunk = regexp.MustCompile(`shrunk from (\d+) to (\d+) bytes in (\d+) (attempts?)`)

// TestOneCauseIsNamedOnce: a server whose every refusal shares one answer
// (422 instead of 400, as FastAPI, Rails and Laravel send by default; or
// 500; or an HTML page) gets exit 1, the cause named before the first
// failure block, the blocks of MUST rules first, a few blocks per rule and
// a line saying where the rest are, and a console under 30 KB; the
// reference gets no cause line.
func TestOneCauseIsNamedOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		wrap  func(http.Handler, string) http.Handler // nil: the shared run of the target named
		exit  int
		cause string // "" for none
	}{
		{"status-422", nil, 1, "came back with status 422 Unprocessable Entity (application/json), a status the document does not have, where 400 was expected"},
		{"every error 500", everyError(http.StatusInternalServerError, ""), 1, "came back with status 500 Internal Server Error (application/json), a status the document does not have, where 400 was expected"},
		{"every error an HTML page", everyError(http.StatusBadRequest, "text/html; charset=utf-8"), 1, "came back with status 400 Bad Request (text/html)"},
		{sharedReference, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var rep *Report
			var console, dir string
			if tt.wrap == nil {
				rep, console, dir = shared(t, tt.name)
			} else {
				url, token := startTarget(t, tt.wrap)
				dir = t.TempDir()
				var out bytes.Buffer
				var err error
				if rep, err = runWith(context.Background(), Config{BaseURL: url, Token: token, Timeout: time.Minute, ReportDir: dir}, Options{Output: &out}); err != nil {
					t.Fatal(err)
				}
				out.Reset() // the progress dots
				rep.WriteVerdict(&out)
				console = out.String()
			}
			if got := rep.ExitCode(); got != tt.exit {
				t.Fatalf("exit %d, want %d\n%s", got, tt.exit, console)
			}
			if got, max := len(console), 30<<10; got > max {
				t.Errorf("console %d bytes, want at most %d", got, max)
			}
			causeAt := strings.Index(console, "COMMON CAUSE: ")
			if tt.cause == "" {
				if causeAt >= 0 {
					t.Errorf("a cause is named where there is none:\n%s", console)
				}
				return
			}
			first := blockHeading.FindStringIndex(console)
			switch {
			case causeAt < 0:
				t.Fatalf("no COMMON CAUSE line:\n%s", console)
			case first == nil:
				t.Fatalf("no failure block:\n%s", console)
			case causeAt > first[0]:
				t.Errorf("the cause is named after the first block")
			}
			if !strings.Contains(console[causeAt:], tt.cause) {
				t.Errorf("the cause line lacks %q:\n%s", tt.cause, console[causeAt:causeAt+300])
			}

			perRule := map[string]int{}
			should := false
			for _, m := range blockHeading.FindAllStringSubmatch(console, -1) {
				rule, level := m[2], m[3]
				perRule[rule]++
				switch level {
				case "OPEN":
					t.Errorf("block %s belongs to the open rule %s", m[1], rule)
				case "SHOULD":
					should = true
				case "MUST":
					if should {
						t.Errorf("block %s of the MUST rule %s follows a SHOULD block", m[1], rule)
					}
				}
			}
			for rule, n := range perRule {
				if n > verdict.ConsoleKindsPerRule {
					t.Errorf("%d blocks of %s on the console, want at most %d", n, rule, verdict.ConsoleKindsPerRule)
				}
			}
			if !strings.Contains(console, "Shown: the first failure of each ") || !strings.Contains(console, " is in summary.md and report.html in "+dir) {
				t.Errorf("no line counts the blocks left out and points to the reports:\n%s", console)
			}
			if strings.Contains(console[first[0]:first[0]+400], "found by the OPEN-") {
				t.Errorf("the first block comes from an open rule's scenario:\n%s", console[first[0]:first[0]+400])
			}
			var sum verdict.Verdict
			b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			for _, f := range sum.Failures {
				if f.Level == rules.Open {
					t.Errorf("summary.json: a failure block of the open rule %s: %s", f.Rule, f.Heading)
				}
				// Each exchange is evidence once: a generated case's own
				// rule points to the evidence given under the rule broken.
				seen := map[string]bool{}
				for _, e := range f.Evidence {
					if e.Rule == rules.GenInvalid && e.Request != "" && seen[e.Request] {
						t.Errorf("%s: the exchange %s is given again under %s", f.Heading, e.Request, e.Rule)
					}
					seen[e.Request] = true
				}
			}
			md, err := os.ReadFile(filepath.Join(dir, SummaryMD))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range shrunk.FindAllStringSubmatch(string(md), -1) {
				from, _ := strconv.Atoi(m[1])
				to, _ := strconv.Atoi(m[2])
				n, _ := strconv.Atoi(m[3])
				if to >= from || (n == 1) != (m[4] == "attempt") {
					t.Errorf("summary.md says %q", m[0])
				}
			}
			if n, want := strings.Count(string(md), "\n### "), len(rep.Failed()); n != want {
				t.Errorf("summary.md has %d failure blocks, want every one of %d", n, want)
			}
		})
	}
}
