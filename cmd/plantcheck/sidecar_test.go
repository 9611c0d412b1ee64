package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/sigverify"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// asMain makes the test binary plantcheck itself when the environment
// asks, so that a test can run the real command as a process of its own
// and kill it outright.
const asMain = "PLANTCHECK_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
	}
	if os.Getenv(asVerifyBundle) == "1" {
		os.Exit(sigverify.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	for _, dir := range fixtures {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// boomUpstream is the reference, but for a create whose name holds "boom",
// which it answers 500 with an HTML page.
func boomUpstream(t *testing.T) (string, string) {
	t.Helper()
	token := reference.RandomToken(40)
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	base, stop, err := reference.Loopback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("boom")) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "<html>500</html>")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		ref.ServeHTTP(w, r)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base, token
}

// readSummary reads summary.json from dir, if it is there whole.
func readSummary(dir string) (*verdict.Verdict, []byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, verdict.SummaryJSON))
	if err != nil {
		return nil, nil, err
	}
	if err := verdict.CheckSummary(b); err != nil {
		return nil, b, err
	}
	var v verdict.Verdict
	return &v, b, json.Unmarshal(b, &v)
}

// TestSidecarKilledKeepsWhatItJudged runs `plantcheck proxy` as a process
// of its own, with the admin endpoints, reports rewritten every 100 ms and
// an event log; sends it a create the upstream breaks; sees the reports
// rewritten with it while the proxy runs; kills the proxy with SIGKILL;
// and finds on disk a summary.json that follows the schema and holds the
// violation, and one event per failed judgement. The token is in no file.
func TestSidecarKilledKeepsWhatItJudged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs plantcheck as a process of its own")
	}
	upstream, token := boomUpstream(t)
	dir := t.TempDir()
	reports, events := filepath.Join(dir, "reports"), filepath.Join(dir, "events.jsonl")
	cmd := exec.Command(os.Args[0], "proxy", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--upstream", upstream,
		"--report-dir", reports, "--report-every", "100ms", "--events", events, "--progress", "0")
	cmd.Env = append(os.Environ(), asMain+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	var base, admin string
	lines := bufio.NewScanner(stderr)
	listen, adminRE := regexp.MustCompile(`listening on (http://\S+),`), regexp.MustCompile(`admin on (http://\S+):`)
	for (base == "" || admin == "") && lines.Scan() {
		if m := listen.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
		if m := adminRE.FindStringSubmatch(lines.Text()); m != nil {
			admin = m[1]
		}
	}
	go io.Copy(io.Discard, stderr)
	if base == "" || admin == "" {
		t.Fatalf("the proxy printed no address (%q) or no admin address (%q)", base, admin)
	}

	// Running: the reports are there at once, with nothing judged yet.
	v, _, err := readSummary(reports)
	if err != nil || v.Counts.Exchanges != 0 {
		t.Fatalf("no reports at start: %v (%+v)", err, v)
	}
	postJSON(t, base, token, `{"id":1,"name":"Fern"}`)
	postJSON(t, base, token, `{"id":2,"name":"boom"}`)
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200} {
		resp, err := http.Get(admin + path)
		if err != nil || resp.StatusCode != want {
			t.Fatalf("GET %s: %v %v, want %d", path, err, resp, want)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), token) {
			t.Errorf("%s shows the token", path)
		}
	}

	// Rewritten while running, with the violation.
	deadline := time.Now().Add(30 * time.Second)
	for {
		v, _, err = readSummary(reports)
		if err == nil && v.Counts.ServerViolations > 0 && v.Counts.Exchanges == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reports were not rewritten with the violation within 30s: %v %+v", err, v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	seen := v.Counts.ServerViolations

	killed = true
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no handler runs
		t.Fatal(err)
	}
	cmd.Wait()

	v, _, err = readSummary(reports)
	if err != nil {
		t.Fatalf("after SIGKILL, summary.json does not follow the schema: %v", err)
	}
	if v.Counts.ServerViolations != seen || v.ExitCode != 1 {
		t.Errorf("after SIGKILL, summary.json holds %d violations (exit %d), want the %d seen, exit 1", v.Counts.ServerViolations, v.ExitCode, seen)
	}
	left, _ := filepath.Glob(filepath.Join(reports, "*.tmp"))
	hidden, _ := filepath.Glob(filepath.Join(reports, ".*"))
	for _, f := range append(left, hidden...) {
		// A write cut by the kill may leave its temporary file; never a
		// torn report.
		t.Logf("left by the kill: %s", filepath.Base(f))
	}
	log, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("an event is not JSON: %v: %s", err, line)
		}
		if e["side"] == "server" {
			n++
		}
	}
	if n != seen {
		t.Errorf("%d server-side events, %d violations", n, seen)
	}
	for _, f := range append([]string{events}, mustGlob(t, filepath.Join(reports, "*"))...) {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", filepath.Base(f))
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: %v (%d files)", pattern, err, len(m))
	}
	return m
}

// TestSidecarFlags: the sidecar's flags are checked before anything
// starts.
func TestSidecarFlags(t *testing.T) {
	t.Parallel()
	up, _ := boomUpstream(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--report-every", "-1s"}, "--report-every -1s: it must be 0 or more"},
		{[]string{"--admin-addr", "256.0.0.1:1"}, "--admin-addr"},
		{[]string{"--events", filepath.Join(t.TempDir(), "no", "such", "dir", "e.jsonl")}, "--events"},
	} {
		code, _, stderr := invoke(t, nil, append([]string{"proxy", "--addr", "127.0.0.1:0", "--upstream", up}, c.args...)...)
		if code != exitCannotRun || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s", c.args, code, stderr, c.want)
		}
	}
}
