package run

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/shell"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// verdictOf returns a rule's verdict in a report.
func verdictOf(t *testing.T, rep *Report, id rules.RuleID) verdict.Rule {
	t.Helper()
	for _, v := range rep.Model().Rules {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("no verdict for %s", id)
	return verdict.Rule{}
}

// TestNoPassWithoutAnAnswer: a rule whose requests were never answered is
// not judged, never passed, in the console and summary.json; before, a
// silent target left AUTH-MISSING, AUTH-SCHEME and AUTH-EMPTY "pass".
func TestNoPassWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	silent := rawTarget(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := runWith(context.Background(), Config{BaseURL: silent, Token: "tok-silent-0123456789", Timeout: 300 * time.Millisecond,
		Tags: "@area-auth", ReportDir: dir}, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&out)
	if rep.ExitCode() == 0 {
		t.Errorf("a silent target got exit 0")
	}
	for _, v := range rep.Model().Rules {
		if v.Outcome == verdict.Pass {
			t.Errorf("%s passed, with no answer from the target", v.ID)
		}
	}
	for _, id := range []rules.RuleID{rules.AuthMissing, rules.AuthScheme, rules.AuthEmpty} {
		if v := verdictOf(t, rep, id); v.Outcome != verdict.NotJudged || v.Judged != 0 || v.NotJudgedBecause == "" {
			t.Errorf("%s: outcome %q, judged %d, why %q; want not judged, with why", id, v.Outcome, v.Judged, v.NotJudgedBecause)
		}
	}
	// The rules not judged are named with their reasons (the brief
	// console of a run with a rule broken leaves them out of its table).
	for _, want := range []string{"\nNot judged, or judged in part:\n  AUTH-MISSING (MUST)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the console does not say %q:\n%s", want, out.String())
		}
	}
	var s verdict.Verdict
	b, _ := os.ReadFile(filepath.Join(dir, SummaryJSON))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rules {
		if r.ID == rules.AuthMissing && (r.Outcome != verdict.NotJudged || r.NotJudgedBecause == "") {
			t.Errorf("summary.json: AUTH-MISSING is %q (why %q)", r.Outcome, r.NotJudgedBecause)
		}
	}
}

// TestPartlyJudgedRule: on a second run against a service that keeps ids
// and refuses a stored one, three of BODY-ID-RANGE's four scenarios (fixed
// ids) are inconclusive: the rule says "1 of 4 judged", and the reason is
// said once, with the rule (before, four times: with the rule as a bare
// "inconclusive", in a note of each scenario, and after the counts).
func TestPartlyJudgedRule(t *testing.T) {
	t.Parallel()
	url, token := startTarget(t, nil)
	cfg := Config{BaseURL: url, Token: token, Tags: "@BODY-ID-RANGE"}
	if _, err := runWith(context.Background(), cfg, Options{Output: io.Discard}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := runWith(context.Background(), cfg, Options{Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&out)
	v := verdictOf(t, rep, rules.BodyIDRange)
	if v.Outcome != verdict.Pass || v.Judged != 1 || v.Scenarios != 4 {
		t.Errorf("BODY-ID-RANGE: %q, %d of %d judged; want passed, 1 of 4", v.Outcome, v.Judged, v.Scenarios)
	}
	for _, want := range []string{"pass (1/4) ", "BODY-ID-RANGE (SHOULD, judged by 1 of 4 scenarios): inconclusive: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the verdict lacks %q:\n%s", want, out.String())
		}
	}
	if c := strings.Count(out.String(), "the target refuses an id it has stored"); c != 1 {
		t.Errorf("the reason is said %d times, want once:\n%s", c, out.String())
	}
	if len(v.Notes) != 0 {
		t.Errorf("notes %q: the reason is the rule's, said once", v.Notes)
	}
}

// TestLikelyCause: a wrong token, or a wrong path prefix, is named before
// the failures, with the flag to check; the run is still exit 1, never 0.
func TestLikelyCause(t *testing.T) {
	t.Parallel()
	url, token := startTarget(t, nil)
	// A server that answers a path it does not serve with its own 400
	// Error record, as rule 2 leads implementers to (echo, Express
	// handlers written so): the path is named, not the token.
	ref, _ := referenceHandler(t)
	routed := handlerTarget(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/plants" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":404,"message":"Not Found"}`))
			return
		}
		ref.ServeHTTP(w, r)
	})
	tests := []struct {
		name, base, token, from, want string
	}{
		{"a wrong path, answered 400 Not Found", routed + "/plantz", token, "", "which reads as a path the service does not serve: check --base-url"},
		{"a base URL that ends in /plants", routed + "/plants", token, "", "--base-url ends in /plants, which plantcheck adds itself"},
		{"a wrong token", url, "not-the-issued-token-42", "", "and all "},
		{"a wrong token, to a server that answers unknown paths 400", routed, "not-the-issued-token-42", "", "speak of credentials: check the token"},
		{"a base URL that ends in /plants, to a server that answers unknown paths 404", url + "/plants", token, "", "--base-url ends in /plants, which plantcheck adds itself"},
		{"a wrong token from the config file", url, "not-the-issued-token-42", "the config file ci/plantcheck.yaml (key token)", "it came from the config file ci/plantcheck.yaml"},
		{"a wrong path prefix", url + "/api/v1", token, "", "--base-url"},
		{"a target that keeps the contract", url, token, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			rep, err := runWith(context.Background(), Config{BaseURL: tt.base, Token: tt.token, TokenFrom: tt.from, Tags: "@area-create,@area-auth"}, Options{Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			rep.WriteVerdict(&out)
			if tt.want == "" {
				if rep.LikelyCause != "" || rep.ExitCode() != 0 {
					t.Errorf("likely cause %q, exit %d for a conformant target", rep.LikelyCause, rep.ExitCode())
				}
				return
			}
			if !strings.Contains(rep.LikelyCause, tt.want) {
				t.Errorf("likely cause %q does not name %s", rep.LikelyCause, tt.want)
			}
			if rep.ExitCode() != 1 {
				t.Errorf("exit %d, want 1", rep.ExitCode())
			}
			console := out.String()
			cause, failures := strings.Index(console, "LIKELY CAUSE: "), strings.Index(console, "Failures (")
			if cause < 0 || failures < 0 || cause > failures {
				t.Errorf("the likely cause (at %d) does not lead the failures (at %d)", cause, failures)
			}
			if strings.Contains(console, tt.token) {
				t.Error("the console holds the token")
			}
			if twice := strings.HasSuffix(tt.base, "/plants"); twice != strings.Contains(console, "(--base-url ends in /plants") {
				t.Errorf("base %s: the console's note on a base URL ending in /plants is there: %v, want %v", tt.base, !twice, twice)
			} else if warned := strings.Index(console, "warning: --base-url ends in /plants"); twice && (warned < 0 || warned > strings.Index(console, "scenarios")) {
				t.Errorf("base %s: no warning before the first request:\n%s", tt.base, console)
			}
			if !strings.Contains(tt.name, "wrong token") && strings.Contains(rep.LikelyCause, "check the token") {
				t.Errorf("likely cause %q blames the token", rep.LikelyCause)
			}
		})
	}
}

// TestReportsOnEveryExit: a run that cannot be made still writes
// summary.json, summary.md and junit.xml with the reason, so that a CI job
// that shows them shows why. A configuration refused before the run (its
// tags at start; a missing token by config, as the command line refuses
// it) writes nothing.
func TestReportsOnEveryExit(t *testing.T) {
	t.Parallel()
	closed := closedPort(t)
	tests := []struct {
		name   string
		cfg    Config
		reason string // "": refused before the run, nothing written
	}{
		{"unreachable", Config{BaseURL: closed, Token: "tok-0123456789"}, "cannot be reached"},
		{"a CA file that cannot be read", Config{BaseURL: closed, Token: "tok-0123456789", CACert: "no-such-ca.pem"}, "no-such-ca.pem"},
		{"bad tags", Config{BaseURL: closed, Token: "tok-0123456789", Tags: "@must &&"}, ""},
		{"no token", Config{BaseURL: closed}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "report")
			tt.cfg.ReportDir = dir
			if _, err := runWith(context.Background(), tt.cfg, Options{Output: io.Discard}); err == nil {
				t.Fatal("the run was made")
			}
			if tt.reason == "" {
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("a configuration refused before the run wrote %s (%v)", dir, err)
				}
				return
			}
			var s verdict.Verdict
			b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.ExitCode != 2 || !strings.Contains(s.Error, tt.reason) {
				t.Errorf("summary.json: exit %d, error %q; want 2 and %q", s.ExitCode, s.Error, tt.reason)
			}
			md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
			if !strings.Contains(string(md), tt.reason) {
				t.Errorf("summary.md does not say why:\n%s", md)
			}
			var j struct {
				Errors int `xml:"errors,attr"`
			}
			x, _ := os.ReadFile(filepath.Join(dir, JUnitXML))
			if err := xml.Unmarshal(x, &j); err != nil || j.Errors != 1 || !strings.Contains(string(x), tt.reason) {
				t.Errorf("junit.xml: %v, %d errors:\n%s", err, j.Errors, x)
			}
		})
	}
}

// TestCompleteReproductions: the rerun line carries every flag that
// changes what is sent, and the curl command the CA file; each failure is
// printed once (godog's own failed-steps section printed it again).
func TestCompleteReproductions(t *testing.T) {
	t.Parallel()
	url, token := startTarget(t, func(h http.Handler, _ string) http.Handler { return rewriteBody(dropTag)(h) })
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, []byte("unused over http"), 0o600)
	for _, format := range []string{"progress", "pretty"} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			cfg := Config{BaseURL: url, Token: token, Format: format, Tags: "@CREATE-TAG", Seed: 777, Examples: 3, Timeout: 45 * time.Second}
			rep, err := runWith(context.Background(), cfg, Options{Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			rep.rerunFlags = append(rep.rerunFlags, "--ca-cert "+shell.Quote(caFile)) // as a CA file would add
			rep.WriteVerdict(&out)
			console := out.String()
			rerun := rep.Rerun(rules.CreateTag)
			for _, want := range []string{"--seed 777", "--examples 3", "--timeout 45s", "--base-url '" + url + "'"} {
				if !strings.Contains(rerun, want) {
					t.Errorf("rerun %q lacks %s", rerun, want)
				}
			}
			if n := strings.Count(console, "expected:    tag"); n != 1 {
				t.Errorf("the failure's evidence is printed %d times, want once:\n%s", n, console)
			}
			if strings.Contains(console, "--- Failed steps") || strings.Contains(console, "passed)") {
				t.Errorf("godog's own summary is printed:\n%s", console)
			}
		})
	}
	cfg := Config{CACert: caFile, Cert: "c.pem", Key: "k.pem", Proxy: "http://proxy:3128"}
	rt := routeFor(t, cfg, "http://plants.test/")
	flags := strings.Join(cfg.curlFlags(rt), " ")
	for _, want := range []string{"--cacert '" + caFile + "'", "--cert 'c.pem'", "--key 'k.pem'", "--proxy 'http://proxy:3128'"} {
		if !strings.Contains(flags, want) {
			t.Errorf("curl flags %q lack %s", flags, want)
		}
	}
	if rerun := strings.Join(cfg.rerunFlags(rt), " "); !strings.Contains(rerun, "--ca-cert '"+caFile+"'") {
		t.Errorf("rerun %q lacks --ca-cert", rerun)
	}
}

// dropTag removes "tag" from a JSON object: CREATE-TAG fails.
func dropTag(b []byte) []byte {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	delete(m, "tag")
	nb, _ := json.Marshal(m)
	return nb
}

// TestBadTagExpressions: godog panics on an empty term and silently
// selects nothing on a parenthesis or "||": each is a configuration error
// with the reason, before any request.
func TestBadTagExpressions(t *testing.T) {
	t.Parallel()
	for _, tags := range []string{"@must &&", "(@must", "@must || @should", ",@must", "@AUTH-MISING", "@must and not @open"} {
		t.Run(tags, func(t *testing.T) {
			var out bytes.Buffer
			_, err := runWith(context.Background(), Config{BaseURL: "http://127.0.0.1:9", Token: "tok-0123456789", Tags: tags}, Options{Output: &out})
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v, want a configuration error", err)
			}
			if out.Len() > 0 {
				t.Errorf("output before the error: %q", out.String())
			}
		})
	}
}
