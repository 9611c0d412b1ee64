package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plantcheck/plantcheck/internal/verdict"
	"github.com/plantcheck/plantcheck/reference"
)

// referenceRun is one run against the reference (seed 7, the canary
// token), its reports in a folder and its traffic in a HAR file, made once
// for the tests that only read them: TestVerify and TestVerifyBundle copy
// the folder before they change anything in it. TestMain removes it.
var referenceRun = sync.OnceValues(func() (reports string, err error) {
	root, err := os.MkdirTemp("", "plantcheck-test-reference-run-")
	if err != nil {
		return "", err
	}
	fixtures = append(fixtures, root)
	ref, err := reference.New(reference.Config{Token: canary})
	if err != nil {
		return "", err
	}
	srv := httptest.NewServer(ref)
	defer srv.Close()
	reports = filepath.Join(root, "reports")
	var errOut bytes.Buffer
	c := cli{stdout: &bytes.Buffer{}, stderr: &errOut, getenv: func(string) string { return "" },
		lookupEnv: func(string) (string, bool) { return "", false }}
	args := []string{"run", "--base-url", srv.URL, "--token", canary, "--report-dir", reports, "--seed", "7", "--har", filepath.Join(root, "run.har")}
	if code := dispatch(context.Background(), c, args); code != 0 {
		return "", fmt.Errorf("run against the reference: exit %d, want 0: %s", code, errOut.String())
	}
	return reports, nil
})

// fixtures are the folders of the runs the tests share.
var fixtures []string

// referenceReports is referenceRun's report folder and HAR file.
func referenceReports(t *testing.T) (reports, har string) {
	t.Helper()
	reports, err := referenceRun()
	if err != nil {
		t.Fatal(err)
	}
	return reports, filepath.Join(filepath.Dir(reports), "run.har")
}

// copyDir copies a report folder's files into a new folder.
func copyDir(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// editJSON rewrites a JSON file of dir through change.
func editJSON(t *testing.T, dir, name string, change func(m map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	change(m)
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// predicateRule is the statement's entry of a rule.
func predicateRule(m map[string]any, id string) map[string]any {
	for _, r := range m["predicate"].(map[string]any)["rules"].([]any) {
		if r := r.(map[string]any); r["id"] == id {
			return r
		}
	}
	return nil
}

// TestVerify: the reports a run writes, against the reference and against
// a mutant, verify as written; each change to them or to the statement is
// named and gives exit 1; what cannot be checked gives exit 2.
func TestVerify(t *testing.T) {
	t.Parallel()
	// The reference's run (exit 0, checked there) is the shared one.
	refDir, recorded := referenceReports(t)
	dirs := map[string]string{"": refDir, "upper-case-name": filepath.Join(t.TempDir(), "reports")}
	if code, _, stderr := invoke(t, nil, "run", "--base-url", target(t, "upper-case-name"), "--token", canary, "--report-dir", dirs["upper-case-name"], "--seed", "7"); code != 1 {
		t.Fatalf("run against upper-case-name: exit %d, want 1: %s", code, stderr)
	}
	// judge writes its statement through the same writer as run and proxy.
	dirs["judge"] = filepath.Join(t.TempDir(), "judged")
	if code, _, stderr := invoke(t, nil, "judge", "--report-dir", dirs["judge"], recorded); code != 0 {
		t.Fatalf("judge: exit %d: %s", code, stderr)
	}
	flip := func(m map[string]any) {
		m["exitCode"] = 1
		m["verdict"] = "NON-CONFORMANT: a MUST rule failed"
	}
	tests := []struct {
		name     string
		from     string
		change   func(t *testing.T, dir string)
		wantCode int
		want     []string // what the output must name
	}{
		{"the reference's reports as written", "", func(*testing.T, string) {}, 0, []string{"HOLDS", "suite strength: "}},
		{"a mutant's reports as written", "upper-case-name", func(*testing.T, string) {}, 0, []string{"HOLDS", "NON-CONFORMANT", "(exit status 1)"}},
		{"judge's reports as written", "judge", func(*testing.T, string) {}, 0, []string{"HOLDS", "judge (traffic)"}},
		{"summary.json's verdict flipped", "", func(t *testing.T, dir string) { editJSON(t, dir, verdict.SummaryJSON, flip) }, 1,
			[]string{"summary.json: its sha256 is", "verdict: summary.json says", "exit status: summary.json says 1, the statement 0", "DOES NOT HOLD"}},
		{"one byte of summary.json", "", func(t *testing.T, dir string) {
			path := filepath.Join(dir, verdict.SummaryJSON)
			b, _ := os.ReadFile(path)
			b[len(b)-1] = ' '
			os.WriteFile(path, b, 0o644)
		}, 1, []string{"summary.json: its sha256 is", "DOES NOT HOLD: ", "1 difference"}},
		{"a rule's outcome in the statement", "upper-case-name", func(t *testing.T, dir string) {
			editJSON(t, dir, verdict.StatementJSON, func(m map[string]any) { predicateRule(m, "CREATE-NAME")["outcome"] = "pass" })
		}, 1, []string{"rule CREATE-NAME: summary.json says fail, the statement pass"}},
		{"report.html changed", "", func(t *testing.T, dir string) {
			path := filepath.Join(dir, verdict.ReportHTML)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, append(b, "<!-- edited -->"...), 0o644)
		}, 1, []string{"report.html: its sha256 is"}},
		{"a statement from another suite", "", func(t *testing.T, dir string) {
			editJSON(t, dir, verdict.StatementJSON, func(m map[string]any) {
				p := m["predicate"].(map[string]any)
				p["suite"].(map[string]any)["sha256"] = strings.Repeat("ab", 32)
				p["plantcheck"].(map[string]any)["version"] = "v0.9.0"
			})
		}, 1, []string{"suite: judged with suite abababababab by plantcheck v0.9.0", "verify with that version", "plantcheck version: summary.json says"}},
		{"no statement", "", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, verdict.StatementJSON)) }, 2,
			[]string{"could not check", verdict.StatementJSON}},
		{"a statement that is not JSON", "", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, verdict.StatementJSON), []byte("{not json"), 0o644)
		}, 2, []string{"could not check", "not an in-toto statement"}},
		{"no junit.xml", "", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, verdict.JUnitXML)) }, 2,
			[]string{"could not check", "junit.xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := copyDir(t, dirs[tt.from])
			tt.change(t, dir)
			code, stdout, stderr := invoke(t, nil, "verify", dir)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			for _, s := range tt.want {
				if !strings.Contains(stdout+stderr, s) {
					t.Errorf("output lacks %q:\n%s%s", s, stdout, stderr)
				}
			}
		})
	}
}

// TestVerifyUsage: verify takes one folder.
func TestVerifyUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"verify"}, {"verify", "a", "b"}} {
		if code, _, stderr := invoke(t, nil, args...); code != 2 || !strings.Contains(stderr, "give one report folder") {
			t.Errorf("%v: exit %d, want 2 naming what to give: %s", args, code, stderr)
		}
	}
}
