package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/features"
	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// canary is a token no output may ever hold.
const canary = "canary-7f3e9b1c-token"

// invoke runs plantcheck with args and env and returns its exit status and
// its two streams.
func invoke(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := cli{stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] },
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code = dispatch(t.Context(), c, args)
	return code, out.String(), errOut.String()
}

// target serves the reference server, or a mutant of it, with the canary
// token on a loopback port.
func target(t *testing.T, mutant string) string {
	t.Helper()
	return targetWithToken(t, mutant, canary)
}

// targetWithToken is target, with the token the server issues.
func targetWithToken(t *testing.T, mutant, token string) string {
	t.Helper()
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = ref
	for _, m := range mutants.All {
		if m.Name == mutant {
			h = m.Wrap(ref, token)
		}
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCommands(t *testing.T) {
	t.Parallel()
	good := target(t, "")
	broken := target(t, "drop-tag")
	shortToken := targetWithToken(t, "", "e")
	dir := t.TempDir()
	tokenFile, emptyFile, configFile := filepath.Join(dir, "token"), filepath.Join(dir, "empty"), filepath.Join(dir, "plantcheck.yaml")
	os.WriteFile(tokenFile, []byte(canary+"\n"), 0o600)
	os.WriteFile(emptyFile, nil, 0o600)
	os.WriteFile(configFile, []byte("base-url: "+good+"\ntoken: ${TOKEN_FOR_TEST}\ntags: '@AUTH-UNKNOWN'\n"), 0o600)
	tagsOnly, tokenOnly, emptyURL := filepath.Join(dir, "tags.yaml"), filepath.Join(dir, "token.yaml"), filepath.Join(dir, "empty-url.yaml")
	os.WriteFile(tagsOnly, []byte("tags: '@must'\n"), 0o600)
	os.WriteFile(tokenOnly, []byte("token: "+canary+"\n"), 0o600)
	os.WriteFile(emptyURL, []byte("base-url: ''\ntoken: "+canary+"\n"), 0o600)
	// What `rules` prints, counted from the catalog and the features, so that
	// a new rule or scenario needs no edit here.
	catalog, err := catalogCounts()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantCode   int
		wantStdout []string // regular expressions
		wantStderr []string
	}{
		{name: "no command", wantCode: 2, wantStderr: []string{`Usage:`, `run +certify`}},
		{name: "unknown command", args: []string{"certify"}, wantCode: 2, wantStderr: []string{`unknown command "certify"`}},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: []string{`Commands:`, `serve +serve the bundled`}},
		{name: "run help", args: []string{"run", "-h"}, wantCode: 0, wantStderr: []string{`-base-url`, `PLANTCHECK_TOKEN`, `-token-file`, `-config`}},
		{name: "run bad flag", args: []string{"run", "--no-such-flag"}, wantCode: 2, wantStderr: []string{`flag provided but not defined`}},
		{name: "run stray argument", args: []string{"run", "http://x"}, wantCode: 2, wantStderr: []string{`unexpected argument "http://x"`}},
		{name: "run bad timeout", args: []string{"run", "--timeout", "soon"}, wantCode: 2, wantStderr: []string{`invalid value "soon"`}},
		{name: "run bad format", args: []string{"run", "--format", "xml"}, wantCode: 2, wantStderr: []string{`unknown format "xml"`}},
		{name: "run bad examples", args: []string{"run", "--examples", "-3"}, wantCode: 2, wantStderr: []string{`--examples -3: it must be between 1 and 10000`}},
		{name: "run zero examples", args: []string{"run", "--examples", "0"}, wantCode: 2, wantStderr: []string{`--examples 0: it must be between 1 and 10000`}},
		{name: "run bad concurrency", args: []string{"run", "--concurrency", "1000"}, wantCode: 2, wantStderr: []string{`--concurrency 1000: it must be between 1 and 64`}},
		{name: "run zero concurrency", args: []string{"run", "--concurrency", "0"}, wantCode: 2, wantStderr: []string{`--concurrency 0: it must be between 1 and 64`}},
		{name: "run a negative rate", args: []string{"run", "--rate", "-1"}, wantCode: 2, wantStderr: []string{`--rate -1: it must be 0 or more`}},
		{name: "run zero timeout", args: []string{"run", "--timeout", "0s"}, wantCode: 2, wantStderr: []string{`--timeout 0s: it must be more than 0`}},
		{name: "run an empty tag term", args: []string{"run", "--tags", "@must &&"}, wantCode: 2, wantStderr: []string{`an empty term`}},
		{name: "run a parenthesis in tags", args: []string{"run", "--tags", "(@must"}, wantCode: 2, wantStderr: []string{`"\(@must" is not a tag`}},
		{name: "run || in tags", args: []string{"run", "--tags", "@must || @open"}, wantCode: 2, wantStderr: []string{`"\|\|" is not or here`}},
		{name: "run a token file", args: []string{"run", "--base-url", good, "--token-file", tokenFile, "--tags", "@AUTH-UNKNOWN"}, wantCode: 0,
			wantStdout: []string{`VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run an empty token file", args: []string{"run", "--base-url", good, "--token-file", emptyFile}, wantCode: 2, wantStderr: []string{`--token-file: .* is empty`}},
		{name: "run a token and a token file", args: []string{"run", "--base-url", good, "--token", canary, "--token-file", tokenFile}, wantCode: 2, wantStderr: []string{`not both`}},
		{name: "run from a config file", env: map[string]string{"TOKEN_FOR_TEST": canary}, args: []string{"run", "--config", configFile}, wantCode: 0,
			wantStdout: []string{`(?m)^config: ` + regexp.QuoteMeta(configFile) + `$`, `AUTH-UNKNOWN +MUST +pass`, `VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run a config file with an unknown key", args: []string{"run", "--config", tokenFile}, wantCode: 2, wantStderr: []string{`plantcheck run: `}},
		{name: "run not an http URL", args: []string{"run", "--base-url", "ftp://127.0.0.1/", "--token", canary}, wantCode: 2, wantStderr: []string{`not an http or https URL`}},
		{name: "run target without token", args: []string{"run", "--base-url", good}, wantCode: 2, wantStderr: []string{`needs its bearer token`}},
		{name: "run tags selecting nothing", args: []string{"run", "--tags", "@must && @open"}, wantCode: 2, wantStderr: []string{`selects no scenario`}},
		{name: "run an unknown tag", args: []string{"run", "--tags", "@NO-SUCH-RULE"}, wantCode: 2, wantStderr: []string{`no scenario has the tag @NO-SUCH-RULE`}},
		{name: "run unreachable", args: []string{"run", "--base-url", "http://127.0.0.1:1", "--token", canary}, wantCode: 2, wantStderr: []string{`cannot be reached`, `connection refused`}},
		{name: "run a dead HTTP_PROXY and a loopback target", env: map[string]string{"HTTP_PROXY": "http://127.0.0.1:1", config.EnvToken: canary}, args: []string{"run", "--base-url", good, "--tags", "@CREATE-200"}, wantCode: 0,
			wantStdout: []string{`(?m)^proxy:  none \(HTTP_PROXY is set, but Go never proxies a loopback target such as 127\.0\.0\.1 or localhost\)$`, `VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run a dead HTTP_PROXY and a named target", env: map[string]string{"HTTP_PROXY": "http://127.0.0.1:1", config.EnvToken: canary}, args: []string{"run", "--base-url", "http://plants.test/"}, wantCode: 2,
			wantStderr: []string{`cannot be reached: the proxy 127\.0\.0\.1:1 \(from HTTP_PROXY\): .*connection refused`}},
		{name: "run the bundled reference", args: []string{"run", "--tags", "@must && @CREATE-200"}, wantCode: 0,
			wantStdout: []string{`(?m)^target: the bundled reference server \(in-process, http://127\.0\.0\.1:\d+/plants\)$`, `CREATE-200 +MUST +pass`,
				`VERDICT: CONFORMANT to the rules that ran \(partial: not every rule ran\) \[target: the bundled reference server, not a server of yours\]`}},
		// Never green without a target: a target given empty, or a setting
		// only a server of one's own uses given without one, is exit 2.
		{name: "run an empty --base-url", args: []string{"run", "--base-url", ""}, wantCode: 2,
			wantStderr: []string{`--base-url is empty: give your server's base URL .*leave --base-url out to certify the bundled reference server`}},
		{name: "run a blank --base-url", args: []string{"run", "--base-url= "}, wantCode: 2, wantStderr: []string{`--base-url is empty`}},
		{name: "run an empty PLANTCHECK_BASE_URL", env: map[string]string{config.EnvBaseURL: ""}, args: []string{"run"}, wantCode: 2,
			wantStderr: []string{`PLANTCHECK_BASE_URL is set but empty .*unset PLANTCHECK_BASE_URL to certify the bundled reference server`}},
		{name: "run an empty PLANTCHECK_BASE_URL and a token", env: map[string]string{config.EnvBaseURL: "", config.EnvToken: canary}, args: []string{"run"}, wantCode: 2,
			wantStderr: []string{`PLANTCHECK_BASE_URL is set but empty`}},
		{name: "run an empty PLANTCHECK_BASE_URL beside a --base-url", env: map[string]string{config.EnvBaseURL: "", config.EnvToken: canary}, args: []string{"run", "--base-url", good, "--tags", "@AUTH-UNKNOWN"}, wantCode: 0,
			wantStdout: []string{`VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run PLANTCHECK_TOKEN and no target", env: map[string]string{config.EnvToken: canary}, args: []string{"run"}, wantCode: 2,
			wantStderr: []string{`PLANTCHECK_TOKEN given, but no target: pass --base-url .*unset PLANTCHECK_TOKEN`}},
		{name: "run an empty PLANTCHECK_TOKEN and no target", env: map[string]string{config.EnvToken: ""}, args: []string{"run"}, wantCode: 2,
			wantStderr: []string{`PLANTCHECK_TOKEN is set but empty \(an unset CI variable or secret\?\): set it, or pass --token or --token-file\n`}},
		{name: "run a blank PLANTCHECK_BASE_URL", env: map[string]string{config.EnvBaseURL: " "}, args: []string{"run"}, wantCode: 2,
			wantStderr: []string{`PLANTCHECK_BASE_URL is set but empty`}},
		{name: "serve an empty PLANTCHECK_TOKEN", env: map[string]string{config.EnvToken: ""}, args: []string{"serve", "--addr", "127.0.0.1:1"}, wantCode: 2,
			wantStderr: []string{`^plantcheck serve: PLANTCHECK_TOKEN is set but empty .*unset PLANTCHECK_TOKEN to have one made up\n$`}},
		{name: "proxy an empty PLANTCHECK_UPSTREAM", env: map[string]string{config.EnvUpstream: ""}, args: []string{"proxy"}, wantCode: 2,
			wantStderr: []string{`^plantcheck proxy: PLANTCHECK_UPSTREAM is set but empty .*pass --upstream\n$`}},
		{name: "run --token and no target", args: []string{"run", "--token", canary}, wantCode: 2, wantStderr: []string{`--token given, but no target.*leave out --token`}},
		{name: "run --token-file and no target", args: []string{"run", "--token-file", tokenFile}, wantCode: 2, wantStderr: []string{`--token-file given, but no target`}},
		{name: "run --header and no target", args: []string{"run", "--header", "X-Api-Key: k"}, wantCode: 2, wantStderr: []string{`--header given, but no target`}},
		{name: "run --ca-cert and no target", args: []string{"run", "--ca-cert", tokenFile}, wantCode: 2, wantStderr: []string{`--ca-cert given, but no target`}},
		{name: "run --cert and --key and no target", args: []string{"run", "--cert", tokenFile, "--key", tokenFile}, wantCode: 2, wantStderr: []string{`--cert, --key given, but no target`}},
		{name: "run --proxy and no target", args: []string{"run", "--proxy", "http://127.0.0.1:1"}, wantCode: 2, wantStderr: []string{`--proxy given, but no target`}},
		{name: "run --config and no target", args: []string{"run", "--config", tagsOnly}, wantCode: 2, wantStderr: []string{`--config given, but no target.*leave out --config`}},
		{name: "run a config file's token and no target", args: []string{"run", "--config", tokenOnly}, wantCode: 2,
			wantStderr: []string{`token in the config file .*token\.yaml, --config given, but no target.*remove the key token from the config file`}},
		{name: "run a config file's empty base-url", args: []string{"run", "--config", emptyURL}, wantCode: 2, wantStderr: []string{`the config file .*empty-url\.yaml gives an empty base-url`}},
		{name: "run --require-target and no target", args: []string{"run", "--require-target"}, wantCode: 2,
			wantStderr: []string{`no target: --require-target refuses to certify the bundled reference server`, `certify-reference: true`}},
		{name: "run --require-target and a target", env: map[string]string{config.EnvBaseURL: good, config.EnvToken: canary}, args: []string{"run", "--require-target", "--tags", "@AUTH-UNKNOWN"}, wantCode: 0,
			wantStdout: []string{`VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run a target from the environment", env: map[string]string{config.EnvBaseURL: good, config.EnvToken: canary}, args: []string{"run", "--tags", "@AUTH-UNKNOWN"}, wantCode: 0,
			wantStdout: []string{regexp.QuoteMeta(good + "/plants"), `AUTH-UNKNOWN +MUST +pass`, `VERDICT: CONFORMANT to the rules that ran`}},
		{name: "flags win over the environment", env: map[string]string{config.EnvBaseURL: "http://127.0.0.1:1", config.EnvToken: "not-it"}, args: []string{"run", "--base-url", good, "--token", canary, "--tags", "@AUTH-UNKNOWN"}, wantCode: 0,
			wantStdout: []string{`VERDICT: CONFORMANT to the rules that ran`}},
		{name: "run with a short token", args: []string{"run", "--base-url", shortToken, "--token", "e"}, wantCode: 0,
			wantStdout: []string{`VERDICT: CONFORMANT: every MUST rule passed`}, wantStderr: []string{`the token is shorter than 8 characters`}},
		{name: "run a broken target", env: map[string]string{config.EnvToken: canary}, args: []string{"run", "--base-url", broken, "--format", "pretty", "--tags", "@CREATE-TAG"}, wantCode: 1,
			wantStdout: []string{`(?m)^  CREATE-TAG \(MUST\), [1-9]\d* failures?: expected tag`, `(?m)^   reproduce: +curl `, `VERDICT: NON-CONFORMANT`}},
		{name: "run a broken target, verbose", env: map[string]string{config.EnvToken: canary}, args: []string{"run", "--base-url", broken, "--verbose", "--tags", "@CREATE-TAG"}, wantCode: 1,
			wantStdout: []string{`CREATE-TAG +MUST +FAIL`, `VERDICT: NON-CONFORMANT`}},
		{name: "selftest list", args: []string{"selftest", "--list"}, wantCode: 0, wantStdout: []string{`(?m)^silent +never answers`, `(?m)^drop-tag .* CREATE-TAG$`}},
		{name: "selftest unknown mutant", args: []string{"selftest", "--mutant", "nope"}, wantCode: 2, wantStderr: []string{`no mutant "nope"`}},
		{name: "selftest two mutants", args: []string{"selftest", "--mutant", "drop-tag, invent-tag", "--tags", "@CREATE-TAG,@CREATE-NO-TAG"}, wantCode: 0,
			wantStdout: []string{`reference server: passes`, `(?m)^invent-tag .* caught`, `2 of 2 mutants caught \(100%\)`}},
		{name: "selftest with a gap", args: []string{"selftest", "--mutant", "drop-tag", "--tags", "@CREATE-NAME,@CREATE-NO-TAG"}, wantCode: 1,
			wantStdout: []string{`SURVIVED`, `(?m)^gap: mutant "drop-tag" .* under seed \d+; rerun: plantcheck selftest --mutant drop-tag --seed \d+ --tags '@CREATE-NAME,@CREATE-NO-TAG'$`}},
		{name: "selftest under two seeds", args: []string{"selftest", "--mutant", "drop-tag", "--tags", "@CREATE-TAG", "--seeds", "2"}, wantCode: 0,
			wantStdout: []string{`reference server: passes under each of 2 seeds`, `(?m)^drop-tag .* caught 2 of 2 seeds`, `SELFTEST: PASS: under each of 2 seeds`}},
		{name: "selftest replays a seed", args: []string{"selftest", "--mutant", "drop-tag", "--tags", "@CREATE-NAME,@CREATE-NO-TAG", "--seed", "7"}, wantCode: 1,
			wantStdout: []string{`(?m)^gap: mutant "drop-tag" .* under seed 7; rerun: plantcheck selftest --mutant drop-tag --seed 7 --tags '@CREATE-NAME,@CREATE-NO-TAG'$`}},
		{name: "selftest via the proxy", args: []string{"selftest", "--via-proxy", "--mutant", "error-as-text", "--tags", "@ERROR-RECORD"}, wantCode: 0,
			wantStdout: []string{`reference server, through the proxy: passes`, `(?m)^error-as-text .* caught +RESPONSE-MEDIA ERROR-RECORD`, `1 of 1 mutants caught by the suite through the proxy`,
				`the proxy alone, from the suite's traffic, catches 1 of 1 mutants`, `one verdict per answer: 2 of 2 runs agree with the proxy's verdict, rule by rule`,
				`SELFTEST: PASS: .* every run through the proxy agrees with the proxy's verdict`}},
		{name: "selftest no seeds", args: []string{"selftest", "--seeds", "0"}, wantCode: 2, wantStderr: []string{`plantcheck selftest: --seeds 0: it must be between 1 and 1000`}},
		{name: "selftest too many seeds", args: []string{"selftest", "--seeds", "1001"}, wantCode: 2, wantStderr: []string{`--seeds 1001: it must be between 1 and 1000`}},
		{name: "selftest a seed and seeds", args: []string{"selftest", "--seed", "7", "--seeds", "3"}, wantCode: 2, wantStderr: []string{`--seed 7 replays one seed, and --seeds 3 asks for 3 fresh ones`}},
		{name: "docs without a folder", args: []string{"docs"}, wantCode: 2, wantStderr: []string{`--report-dir is required`}},
		{name: "rules", args: []string{"rules"}, wantCode: 0, wantStdout: []string{`(?m)^RULE +LEVEL +SCENARIOS +STRENGTH +SOURCE$`, `(?m)^BODY-ID-INTEGER +MUST +` + strconv.Itoa(catalog.perRule[rules.BodyIDInteger]) + ` +[^ ].* +Endpoints, POST /plants, rule 3$`, regexp.QuoteMeta(catalog.summary)}},
		{name: "rules verbose", args: []string{"rules", "--verbose"}, wantCode: 0, wantStdout: []string{`(?m)^AUTH-UNKNOWN \(MUST\), from Authentication$`, `- A bearer token the service did not issue is rejected with an Error record \(` + regexp.QuoteMeta(catalog.where["A bearer token the service did not issue is rejected with an Error record"]) + `\)`}},
		{name: "rules as JSON", args: []string{"rules", "--format", "json"}, wantCode: 0, wantStdout: []string{`"id": "AUTH-EMPTY"`, `"level": "must"`, `"uri": "authentication.feature"`}},
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: []string{`^plantcheck \S+`, `Plant Store API 1\.0\.0`}},
		{name: "version stray argument", args: []string{"version", "x"}, wantCode: 2, wantStderr: []string{`unexpected argument`}},
		{name: "spec", args: []string{"spec"}, wantCode: 0, wantStdout: []string{`(?m)^openapi: 3\.1\.0$`, `/plants:`}},
		{name: "serve bad address", args: []string{"serve", "--addr", "127.0.0.1:99999"}, wantCode: 2, wantStderr: []string{`plantcheck serve: listen tcp`}},
		// Every bound is its setting's Range (config.Settings), said in one shape.
		{name: "judge no body judged", args: []string{"judge", "--max-judge", "0", "x.har"}, wantCode: 2, wantStderr: []string{`^plantcheck judge: --max-judge 0: it must be more than 0\n$`}},
		{name: "judge no file read", args: []string{"judge", "--max-file", "-1", "x.har"}, wantCode: 2, wantStderr: []string{`^plantcheck judge: --max-file -1: it must be more than 0\n$`}},
		{name: "proxy a negative progress", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--progress", "-2s"}, wantCode: 2, wantStderr: []string{`^plantcheck proxy: --progress -2s: it must be 0 or more\n$`}},
		{name: "proxy no time limit", args: []string{"proxy", "--upstream", "http://127.0.0.1:1", "--timeout", "-1s"}, wantCode: 2, wantStderr: []string{`^plantcheck proxy: --timeout -1s: it must be more than 0 \(such as 2s or 500ms\)\n$`}},
		{name: "serve bad body limit", args: []string{"serve", "--max-body", "0"}, wantCode: 2, wantStderr: []string{`--max-body 0: it must be more than 0`}},
		{name: "serve an unknown mutant among several", args: []string{"serve", "--addr", "127.0.0.1:0", "--mutant", "drop-tag,nope"}, wantCode: 2, wantStderr: []string{`no mutant "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, tt.env, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit status = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, re := range tt.wantStdout {
				if !regexp.MustCompile(re).MatchString(stdout) {
					t.Errorf("stdout lacks %q:\n%s", re, stdout)
				}
			}
			for _, re := range tt.wantStderr {
				if !regexp.MustCompile(re).MatchString(stderr) {
					t.Errorf("stderr lacks %q:\n%s", re, stderr)
				}
			}
			if strings.Contains(stdout+stderr, canary) {
				t.Errorf("the token appears in the output")
			}
		})
	}
}

// TestHelpNamesRealTags: every tag the help names selects scenarios (it
// once named @slow, which no scenario has).
func TestHelpNamesRealTags(t *testing.T) {
	t.Parallel()
	_, _, help := invoke(t, nil, "run", "-h")
	tags := regexp.MustCompile(`~?@[A-Za-z0-9-]+`).FindAllString(help, -1)
	if len(tags) < 3 {
		t.Fatalf("the help names %d tags: %s", len(tags), help)
	}
	for _, tag := range tags {
		if _, err := features.ParseTags(tag); err != nil {
			t.Errorf("the help names %s: %v", tag, err)
		}
	}
}

// TestBadTagsPrintNothingOfGodog: a bad expression stops before godog
// runs, so nothing of godog's reaches the console.
func TestBadTagsPrintNothingOfGodog(t *testing.T) {
	t.Parallel()
	for _, tags := range []string{"@must &&", "(@must", "@must || @open"} {
		code, stdout, _ := invoke(t, nil, "run", "--tags", tags)
		if code != exitCannotRun || stdout != "" {
			t.Errorf("--tags %q: exit %d, stdout %q", tags, code, stdout)
		}
	}
}

func TestSpecPrintsTheEmbeddedDocument(t *testing.T) {
	t.Parallel()
	_, stdout, _ := invoke(t, nil, "spec")
	if !bytes.Equal([]byte(stdout), spec.Document()) {
		t.Errorf("plantcheck spec printed %d bytes, not the %d of the embedded document", len(stdout), len(spec.Document()))
	}
}

// lockedWriter lets serve write its log while the test reads it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServe starts serve on a free port, certifies it twice with run, and
// stops it as SIGTERM would (by cancelling its context).
func TestServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       map[string]string
		args      []string
		wantToken *regexp.Regexp // how the token shows on stderr; nil: never
		logged    bool           // --log: one line a request
	}{
		{name: "token from the environment", env: map[string]string{config.EnvToken: canary}, args: []string{"serve", "--addr", "127.0.0.1:0", "--log"}, logged: true},
		{name: "token from the flag", args: []string{"serve", "--addr", "127.0.0.1:0", "--token", canary}},
		{name: "random token", args: []string{"serve", "--addr", "127.0.0.1:0", "--log"}, wantToken: regexp.MustCompile(`export PLANTCHECK_TOKEN=(\S+)`), logged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pr, pw := io.Pipe()
			var log bytes.Buffer
			stderr := io.MultiWriter(pw, &lockedWriter{w: &log})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan int, 1)
			go func() {
				done <- dispatch(ctx, cli{stdout: io.Discard, stderr: stderr, getenv: func(k string) string { return tt.env[k] }}, tt.args)
				pw.Close()
			}()

			// Read the start-up lines: the address, and the token if made up.
			lines := bufio.NewScanner(pr)
			base, token := "", canary
			addrRE := regexp.MustCompile(`listens on (http://\S+) `)
			for (base == "" || tt.wantToken != nil && token == canary) && lines.Scan() {
				if m := addrRE.FindStringSubmatch(lines.Text()); m != nil {
					base = m[1]
				}
				if tt.wantToken != nil {
					if m := tt.wantToken.FindStringSubmatch(lines.Text()); m != nil {
						token = m[1]
					}
				}
			}
			go io.Copy(io.Discard, pr)
			if base == "" {
				cancel()
				t.Fatalf("serve printed no address (exit %d)", <-done)
			}
			if tt.wantToken != nil && (token == canary || len(token) < 16) {
				t.Fatalf("serve printed no usable random token: %q", token)
			}

			for i := range 2 {
				code, stdout, stderr := invoke(t, map[string]string{config.EnvToken: token}, "run", "--base-url", base)
				if code != 0 {
					t.Errorf("run %d against serve: exit %d\n%s\n%s", i+1, code, stdout, stderr)
				}
			}

			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("serve exit status = %d after shutdown, want 0", code)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("serve did not stop within 15s of its context ending")
			}
			if _, err := http.Get(base + "/plants"); err == nil {
				t.Errorf("serve still answers after shutdown")
			}
			out := log.String()
			if got := strings.Contains(out, "method=POST path=/plants status=200"); got != tt.logged {
				t.Errorf("a request log line for a created plant: %v, want %v (--log):\n%.2000s", got, tt.logged, out)
			}
			if tt.wantToken == nil && strings.Contains(out, canary) {
				t.Errorf("serve printed the token it was given")
			}
			if n := strings.Count(out, token); tt.wantToken != nil && n != 1 {
				t.Errorf("serve printed its random token %d times, want 1 (at start-up)", n)
			}
		})
	}
}

// TestTokenNeverWritten runs plantcheck with a canary token against a
// passing target, failing ones, and one that echoes the token back in a
// header and in its body, and searches everything the run printed or wrote.
func TestTokenNeverWritten(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Seen-Authorization", auth)
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"%s","message":%q}`, auth, "your credentials were "+auth)
	}))
	t.Cleanup(echo.Close)
	tests := []struct {
		name     string
		base     string
		wantCode int
	}{
		{"passing run", target(t, ""), 0},
		{"failing run", target(t, "drop-tag"), 1},
		{"credentials ignored", target(t, "ignore-token"), 1},
		{"token echoed back", echo.URL, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, format := range []string{"pretty", "progress"} {
				code, stdout, stderr := invoke(t, map[string]string{config.EnvToken: canary},
					"run", "--base-url", tt.base, "--format", format, "--report-dir", dir, "--timeout", "1m")
				if code != tt.wantCode {
					t.Errorf("%s: exit %d, want %d\n%s", format, code, tt.wantCode, stderr)
				}
				if strings.Contains(stdout+stderr, canary) {
					t.Errorf("%s: the token appears on the console", format)
				}
			}
			files := 0
			filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				files++
				b, err := os.ReadFile(path)
				if err != nil {
					t.Error(err)
				}
				if bytes.Contains(b, []byte(canary)) {
					t.Errorf("%s holds the token", filepath.Base(path))
				}
				return nil
			})
			if files < 2 {
				t.Errorf("the report folder holds %d files, want at least junit.xml and cucumber.json", files)
			}
		})
	}
}

// counts are the catalog's and the features' numbers as `plantcheck rules`
// prints them.
type counts struct {
	perRule map[rules.RuleID]int
	where   map[string]string // scenario name: features/<file>:<line>
	summary string            // "34 rules (26 MUST, 5 SHOULD, 3 open), 122 scenarios"
}

func catalogCounts() (counts, error) {
	scs, err := features.Scenarios()
	if err != nil {
		return counts{}, err
	}
	c := counts{perRule: map[rules.RuleID]int{}, where: map[string]string{}}
	for _, s := range scs {
		c.perRule[s.Rule()]++
		c.where[s.Name] = fmt.Sprintf("features/%s:%d", s.URI, s.Line)
	}
	levels := map[rules.Level]int{}
	for _, r := range rules.Catalog {
		levels[r.Level]++
	}
	c.summary = fmt.Sprintf("%d rules (%d MUST, %d SHOULD, %d open), %d scenarios",
		len(rules.Catalog), levels[rules.Must], levels[rules.Should], levels[rules.Open], len(scs))
	return c, nil
}

// TestUsageErrorsAreShort: a bad flag or a stray argument, to any command,
// is exit 2 with the error and a one-line hint, never the whole usage,
// which would push the error off the screen; -h still prints the usage.
func TestUsageErrorsAreShort(t *testing.T) {
	t.Parallel()
	for _, cmd := range commands {
		for _, args := range [][]string{{"--no-such-flag"}, {"--no-such-flag=1", "x"}} {
			code, stdout, stderr := invoke(t, nil, append([]string{cmd.name}, args...)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != exitCannotRun || len(lines) != 2 || !strings.Contains(lines[0], "no-such-flag") ||
				lines[1] != "Run 'plantcheck "+cmd.name+" -h' for its flags." || stdout != "" {
				t.Errorf("plantcheck %s %v: exit %d, stdout %q, stderr %q; want exit 2, the error and the hint", cmd.name, args, code, stdout, stderr)
			}
		}
		code, _, stderr := invoke(t, nil, cmd.name, "-h")
		if code != exitOK || !strings.Contains(stderr, "Usage: plantcheck "+cmd.name) {
			t.Errorf("plantcheck %s -h: exit %d, %q; want the usage and exit 0", cmd.name, code, stderr)
		}
	}
}

// TestColor: the verdict is in colour on a terminal, unless NO_COLOR is
// set (https://no-color.org) or --color never; never in colour elsewhere
// unless --color always; a --color of another word is exit 2.
func TestColor(t *testing.T) {
	t.Parallel()
	good := target(t, "drop-tag")
	tests := []struct {
		name     string
		terminal bool
		noColor  string
		flag     string
		want     bool
		code     int
	}{
		{"a terminal", true, "", "", true, 1},
		{"a terminal, NO_COLOR set", true, "1", "", false, 1},
		{"a terminal, --color never", true, "", "never", false, 1},
		{"a pipe", false, "", "", false, 1},
		{"a pipe, --color always", false, "", "always", true, 1},
		{"a word --color does not know", false, "", "sometimes", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			env := map[string]string{config.EnvToken: canary, "NO_COLOR": tt.noColor}
			c := cli{stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }, isTerminal: tt.terminal}
			args := []string{"run", "--base-url", good, "--tags", "@CREATE-TAG", "--format", "progress"}
			if tt.flag != "" {
				args = append(args, "--color", tt.flag)
			}
			if code := dispatch(t.Context(), c, args); code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out.String(), errOut.String())
			}
			if got := strings.Contains(out.String(), "\x1b["); got != tt.want {
				t.Errorf("colour %v, want %v:\n%s", got, tt.want, out.String())
			}
			if tt.want && !strings.Contains(out.String(), "\x1b[31mVERDICT: NON-CONFORMANT") {
				t.Errorf("the verdict's line is not red:\n%q", out.String())
			}
		})
	}
}

// TestHelpCommand: plantcheck help NAME prints, on stdout, the usage
// NAME -h prints, for every command; help alone, the general usage; a
// name that is no command, exit 2 with a did-you-mean.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			code, _, want := invoke(t, nil, cmd.name, "-h")
			if code != exitOK || !strings.HasPrefix(want, "Usage: plantcheck "+cmd.name+" ") {
				t.Fatalf("plantcheck %s -h: exit %d, %.60q", cmd.name, code, want)
			}
			code, stdout, stderr := invoke(t, nil, "help", cmd.name)
			if code != exitOK || stdout != want || stderr != "" {
				t.Errorf("plantcheck help %s: exit %d, stderr %q, stdout\n%s\nwant exit 0 and\n%s", cmd.name, code, stderr, stdout, want)
			}
		})
	}
	_, general, _ := invoke(t, nil, "--help")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help alone", []string{"help"}, exitOK, general, ""},
		{"help help", []string{"help", "help"}, exitOK, general, ""},
		{"a typo", []string{"help", "rnu"}, exitCannotRun, "",
			"plantcheck help: unknown command \"rnu\"\ndid you mean plantcheck help run?\nRun 'plantcheck help' for the commands.\n"},
		{"no command near", []string{"help", "zzzzzzzz"}, exitCannotRun, "",
			"plantcheck help: unknown command \"zzzzzzzz\"\nRun 'plantcheck help' for the commands.\n"},
		{"two names", []string{"help", "run", "proxy"}, exitCannotRun, "",
			"plantcheck help: unexpected argument \"proxy\"\nRun 'plantcheck help' for the commands.\n"},
		{"a hostile name", []string{"help", "\x1b[31mrun"}, exitCannotRun, "",
			"plantcheck help: unknown command \"\\\\x1b[31mrun\"\nRun 'plantcheck help' for the commands.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := invoke(t, nil, tt.args...)
			if code != tt.wantCode || stdout != tt.wantStdout || stderr != tt.wantStderr {
				t.Errorf("plantcheck %q: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q",
					tt.args, code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}
