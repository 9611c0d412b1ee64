package verdict_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
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
	"github.com/plantcheck/plantcheck/internal/proxy"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// startUpstream serves the reference, or a mutant of it, on loopback.
func startUpstream(t *testing.T, mutant string) (string, string) {
	t.Helper()
	token := reference.RandomToken(40)
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = ref
	if mutant != "" {
		m, ok := mutants.Lookup(mutant)
		if !ok {
			t.Fatalf("no mutant %s", mutant)
		}
		h = m.Wrap(ref, token)
	}
	base, stop, err := reference.Loopback(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return base, token
}

// throughProxy runs the whole suite through a proxy in front of upstream
// and writes both reports: run's into runDir, the proxy's into proxyDir.
func throughProxy(t *testing.T, upstream, token, runDir, proxyDir string) {
	t.Helper()
	u, _ := url.Parse(upstream)
	h, err := proxy.New(proxy.Config{Upstream: u, MaxJudge: config.DefaultMaxJudge, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ctx, ln, h, 5*time.Second, 0, nil) }()
	cfg, err := config.Run{BaseURL: "http://" + ln.Addr().String(), Token: token, ReportDir: runDir, Seed: 3}.Complete()
	if err != nil {
		t.Fatal(err)
	}
	_, err = run.Run(t.Context(), run.Config(cfg), run.Options{Output: io.Discard})
	cancel()
	if serr := <-served; serr != nil && !errors.Is(serr, proxy.ErrCut) {
		t.Fatalf("Serve: %v", serr)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := h.Verdict(proxy.Options{}).WriteFiles(proxyDir); err != nil {
		t.Fatal(err)
	}
}

// deadUpstream writes into dir the reports of a proxy whose upstream never
// answered, after one request passed through.
func deadUpstream(t *testing.T, dir string) {
	t.Helper()
	closed, stop, err := reference.Loopback(http.NotFoundHandler())
	if err != nil {
		t.Fatal(err)
	}
	stop()
	u, _ := url.Parse(closed)
	h, err := proxy.New(proxy.Config{Upstream: u, MaxJudge: config.DefaultMaxJudge, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- proxy.Serve(ctx, ln, h, 5*time.Second, 0, nil) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/plants", "application/json", strings.NewReader(`{"id":1,"name":"Fern"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cancel()
	<-served
	v := h.Verdict(proxy.Options{})
	if v.ExitCode != 2 {
		t.Errorf("a proxy that judged nothing of its traffic: exit %d, want 2 (%s)", v.ExitCode, v.Verdict)
	}
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
}

// members are the names of an object's members, sorted.
func members(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// TestSummaryFollowsTheSchema: summary.json from a real run and from a real
// proxy, against the reference and against a mutant (so that failure blocks
// with evidence are there), validates against the published schema; both
// documents have the same top-level members, and every rule entry (and
// failure block, and piece of evidence) the same members, whichever driver
// wrote it. A run that could not be made and a proxy whose upstream was
// down validate too.
func TestSummaryFollowsTheSchema(t *testing.T) {
	t.Parallel()
	type doc struct {
		name string
		path string
	}
	var docs []doc
	for _, mutant := range []string{"", "upper-case-name"} {
		upstream, token := startUpstream(t, mutant)
		runDir, proxyDir := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "proxy")
		throughProxy(t, upstream, token, runDir, proxyDir)
		docs = append(docs, doc{"run " + mutant, filepath.Join(runDir, verdict.SummaryJSON)}, doc{"proxy " + mutant, filepath.Join(proxyDir, verdict.SummaryJSON)})
	}
	cannot := filepath.Join(t.TempDir(), "cannot")
	if err := run.WriteCannotRun(cannot, "http://127.0.0.1:1", errors.New("the target cannot be reached")); err != nil {
		t.Fatal(err)
	}
	docs = append(docs, doc{"run that could not be made", filepath.Join(cannot, verdict.SummaryJSON)})
	down := filepath.Join(t.TempDir(), "down")
	deadUpstream(t, down)
	docs = append(docs, doc{"proxy whose upstream was down", filepath.Join(down, verdict.SummaryJSON)})

	byDriver := map[string]map[string]any{}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			b, err := os.ReadFile(d.path)
			if err != nil {
				t.Fatal(err)
			}
			if err := verdict.CheckSummary(b); err != nil {
				t.Errorf("%s does not follow the schema: %v", d.path, err)
			}
			// The statement beside it is an in-toto Statement whose
			// predicate follows conformance.schema.json (ReadStatement
			// checks both) and vouches for this summary.json.
			st, err := os.ReadFile(filepath.Join(filepath.Dir(d.path), verdict.StatementJSON))
			if err != nil {
				t.Fatal(err)
			}
			subjects, _, err := verdict.ReadStatement(st)
			if err != nil {
				t.Errorf("%s: %v", verdict.StatementJSON, err)
			} else if got, want := subjects[verdict.SummaryJSON], sha256Hex(b); got != want {
				t.Errorf("the statement vouches for summary.json %s, the file is %s", got, want)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(d.name, "upper-case-name") {
				byDriver[m["driver"].(string)] = m
			}
		})
	}
	// The proxy's page shows plantcheck's own text with its code as code,
	// never as literal backticks (issue 26).
	for _, dir := range []string{filepath.Dir(docs[3].path)} {
		page, err := os.ReadFile(filepath.Join(dir, verdict.ReportHTML))
		if err != nil {
			t.Fatal(err)
		}
		// The rules table, and the reasons under it, hold plantcheck's
		// text only (the evidence may quote backticks a target sent).
		_, table, _ := strings.Cut(string(page), `<table id="rules">`)
		table, _, _ = strings.Cut(table, `</ul>`)
		if strings.Contains(table, "`") || !strings.Contains(table, "<code>plantcheck run</code>") {
			t.Errorf("%s shows backticks, or not the command as code", filepath.Join(dir, verdict.ReportHTML))
		}
	}
	run, prx := byDriver["run"], byDriver["proxy"]
	if run == nil || prx == nil {
		t.Fatal("missing a driver's document")
	}
	if a, b := members(run), members(prx); !slices.Equal(a, b) {
		t.Errorf("top-level members differ:\nrun   %v\nproxy %v", a, b)
	}
	first := func(m map[string]any, list string) map[string]any {
		l, _ := m[list].([]any)
		if len(l) == 0 {
			t.Fatalf("%s of %s is empty", list, m["driver"])
		}
		return l[0].(map[string]any)
	}
	for _, list := range []string{"rules", "failures"} {
		if a, b := members(first(run, list)), members(first(prx, list)); !slices.Equal(a, b) {
			t.Errorf("members of an entry of %s differ:\nrun   %v\nproxy %v", list, a, b)
		}
	}
	ev := func(m map[string]any) map[string]any { return first(first(m, "failures"), "evidence") }
	if a, b := members(ev(run)), members(ev(prx)); !slices.Equal(a, b) {
		t.Errorf("members of a piece of evidence differ:\nrun   %v\nproxy %v", a, b)
	}
}

// TestSchemaRejects: the schema can fail: a document missing a member,
// with a member of its own, or with an outcome outside the vocabulary does
// not validate.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	v := &verdict.Verdict{Driver: verdict.Proxy, Started: time.Unix(0, 0).UTC(), Ended: time.Unix(1, 0).UTC(), Scope: "traffic"}
	v.Stamp("Plant Store API", "1.0.0")
	v.Rules = []verdict.Rule{{ID: "CREATE-200", Level: "must", Outcome: verdict.Pass}}
	v.Finish()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, verdict.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		valid  bool
	}{
		{"as written", func(map[string]any) {}, true},
		{"no seed", func(m map[string]any) { delete(m, "seed") }, false},
		{"a member of its own", func(m map[string]any) { m["upstream"] = "x" }, false},
		{"an outcome outside the vocabulary", func(m map[string]any) { m["rules"].([]any)[0].(map[string]any)["outcome"] = "passed" }, false},
		{"no version of plantcheck", func(m map[string]any) { m["plantcheck"].(map[string]any)["version"] = "" }, false},
		{"no plantcheck", func(m map[string]any) { delete(m, "plantcheck") }, false},
		{"a rule entry missing a member", func(m map[string]any) { delete(m["rules"].([]any)[0].(map[string]any), "rerun") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tc.change(m)
			b, _ := json.Marshal(m)
			if err := verdict.CheckSummary(b); (err == nil) != tc.valid {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.valid, err)
			}
		})
	}
}
