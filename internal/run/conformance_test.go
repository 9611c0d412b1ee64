package run

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// TestReferenceConforms runs every feature against the bundled reference
// server in-process, each scenario a subtest, strict.
func TestReferenceConforms(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	rep, err := runWith(context.Background(), withReference(t, Config{}), Options{Godog: func(o *godog.Options) { o.TestingT = t }, Output: &out})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := rep.ExitCode(), 0; got != want {
		rep.WriteVerdict(&out)
		t.Fatalf("exit code = %d, want %d\n%s", got, want, out.String())
	}
	for _, v := range rep.Model().Rules {
		want := verdict.Pass
		if got := v.Outcome; got != want {
			t.Errorf("rule %s = %s, want %s (notes %v)", v.ID, got, want, v.Notes)
		}
	}
	if rep.Model().Counts.Failed+rep.Model().Counts.Errors+rep.Model().Counts.NotRun != 0 {
		t.Errorf("counts = %+v, want every scenario passed", rep.Model().Counts)
	}
}

// TestTokensThatOccurInHonestAnswers: a token is hidden in the evidence
// wherever a target echoes it, but the verdict is taken on the answer as
// sent, so a token that happens to occur in an honest answer (a letter of a
// plant's name, a word of an error message) breaks no rule.
func TestTokensThatOccurInHonestAnswers(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"e", "a", "tag", "Monstera", "json", "id"} {
		t.Run(token, func(t *testing.T) {
			t.Parallel()
			ref, err := reference.New(reference.Config{Token: token})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(ref)
			defer srv.Close()
			var out bytes.Buffer
			rep, err := runWith(context.Background(), Config{BaseURL: srv.URL, Token: token, Strict: true}, Options{Output: &out})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := rep.ExitCode(); got != 0 {
				rep.WriteFailures(&out)
				t.Fatalf("exit code = %d, want 0\n%s", got, out.String())
			}
		})
	}
}

// reference starts the reference server, wrapped, on a loopback port.
func startTarget(t testing.TB, wrap func(http.Handler, string) http.Handler) (url, token string) {
	t.Helper()
	return startTargetWith(t, "t0ken-"+strings.ReplaceAll(t.Name(), "/", "-"), wrap)
}

// startTargetWith starts the reference server, wrapped, with this token.
func startTargetWith(t testing.TB, token string, wrap func(http.Handler, string) http.Handler) (url, tok string) {
	t.Helper()
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = ref
	if wrap != nil {
		h = wrap(ref, token)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, token
}

// closedPort returns the URL of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

func TestRunCannotRun(t *testing.T) {
	t.Parallel()
	closed := closedPort(t)
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"nothing listening", Config{BaseURL: closed, Token: "x"}, ErrUnreachable},
		{"not a URL", Config{BaseURL: "ftp://example", Token: "x"}, ErrConfig},
		{"no host", Config{BaseURL: "http://", Token: "x"}, ErrConfig},
		{"no token", Config{BaseURL: closed}, ErrConfig},
		{"no target", Config{}, ErrConfig},
		{"bad format", withReference(t, Config{Format: "xml"}), ErrConfig},
		{"bad concurrency", withReference(t, Config{Concurrency: -1}), ErrConfig},
		{"tags select nothing", withReference(t, Config{Tags: "@NO-SUCH-RULE"}), ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := runWith(context.Background(), tt.cfg, Options{Output: io.Discard})
			if !errors.Is(err, tt.want) {
				t.Errorf("Run() error = %v, want %v", err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Run() took %s to say it cannot run", d)
			}
		})
	}
}

func TestPartialRunByTags(t *testing.T) {
	t.Parallel()
	rep, err := runWith(context.Background(), withReference(t, Config{Tags: "@AUTH-MISSING"}), Options{Output: io.Discard})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !rep.Partial() {
		t.Errorf("Partial() = false for a run filtered by tags")
	}
	scs, err := features.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	own := 0 // AUTH-MISSING's scenarios, counted from the features
	for _, s := range scs {
		if s.Rule() == rules.AuthMissing {
			own++
		}
	}
	if got, want := rep.Model().Counts.Scenarios, own; got != want || want == 0 {
		t.Errorf("scenarios = %d, want %d", got, want)
	}
	for _, v := range rep.Model().Rules {
		if v.ID == "AUTH-MISSING" && v.Outcome != verdict.Pass {
			t.Errorf("AUTH-MISSING = %s, want passed", v.Outcome)
		}
		if v.ID == "AUTH-SCHEME" && v.Outcome != verdict.Skip {
			t.Errorf("AUTH-SCHEME = %s, want not run", v.Outcome)
		}
	}
	if !strings.Contains(rep.VerdictLine(), "partial") {
		t.Errorf("verdict %q does not say partial", rep.VerdictLine())
	}
}

// TestEveryRuleHasAScenario keeps the catalog and the features in step.
func TestEveryRuleHasAScenario(t *testing.T) {
	t.Parallel()
	rep, _, _ := shared(t, sharedReference)
	seen := map[rules.RuleID]bool{}
	for _, s := range rep.Scenarios {
		if s.Rule.ID == "UNTAGGED" {
			t.Errorf("scenario %q names no rule of the catalog", s.Name)
		}
		seen[s.Rule.ID] = true
	}
	for _, r := range rules.Catalog {
		if !seen[r.ID] {
			t.Errorf("rule %s has no scenario", r.ID)
		}
	}
}

// TestFailureEvidence checks that a failed rule is reported with what a
// developer needs: the rule, the requirement, expected and actual, the
// exchange, a curl command and the line that reruns the rule.
func TestFailureEvidence(t *testing.T) {
	t.Parallel()
	m, _ := mutants.Lookup("drop-tag")
	url, token := startTarget(t, m.Wrap)
	rep, err := runWith(context.Background(), Config{BaseURL: url, Token: token, Timeout: time.Minute, Tags: "@CREATE-TAG"}, Options{Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.WriteVerdict(&out)
	for _, want := range []string{
		"Failures (1 scenario):",
		"1) CREATE-TAG (MUST): The Plant record carries the tag that was sent",
		"scenario:    features/create_plant.feature:",
		"requirement: The Plant record answered with 200 carries the very tag that was sent",
		"expected:    tag \"",
		"actual:      tag is missing",
		"request:     POST " + url + "/plants [Authorization: Bearer <token>; Content-Type: application/json] body",
		"response:    200 application/json",
		"reproduce:   curl -sS -i -X POST '" + url + "/plants'",
		`-H "Authorization: Bearer ${PLANTCHECK_TOKEN}"`,
		"rerun:       plantcheck run --base-url '" + url + "' --seed " + strconv.FormatUint(rep.Config.Seed, 10) + " --timeout 1m0s --tags '@CREATE-TAG'",
		"scope:  partial",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("verdict lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), token) {
		t.Error("the verdict holds the token")
	}
}
