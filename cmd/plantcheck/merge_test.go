package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// proxySummary runs a real proxy in front of the broken-on-boom upstream,
// sends it the bodies given, and returns the path of its summary.json.
func proxySummary(t *testing.T, bodies ...string) string {
	t.Helper()
	upstream, token := boomUpstream(t)
	dir := filepath.Join(t.TempDir(), "reports")
	base, stop := startProxyCmd(t, nil, "--addr", "127.0.0.1:0", "--upstream", upstream, "--report-dir", dir, "--progress", "0")
	for _, b := range bodies {
		postJSON(t, base, token, b)
	}
	if code, _, errOut := stop(); code > 1 {
		t.Fatalf("the proxy exited %d: %s", code, errOut)
	}
	return filepath.Join(dir, verdict.SummaryJSON)
}

// TestMergeCommand merges real proxies' summary.json files: the verdict is
// the combined traffic's, the reports are written and follow the schema;
// a file that is not a proxy's summary is exit 2, named.
func TestMergeCommand(t *testing.T) {
	t.Parallel()
	good := proxySummary(t, `{"id":1,"name":"Fern"}`)
	good2 := proxySummary(t, `{"id":2,"name":"Monstera"}`, `{"id":3,"name":"Ivy"}`)
	broken := proxySummary(t, `{"id":4,"name":"boom"}`)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte(`{"driver":"proxy"}`), 0o644)
	for _, c := range []struct {
		name  string
		files []string
		exit  int
		want  string
	}{
		{"two that passed", []string{good, good2}, 0, "3 exchanges of POST /plants judged"},
		{"one broke a rule", []string{good, good2, broken}, 1, "NON-CONFORMANT"},
		{"a file that is not a summary", []string{good, garbage}, 2, "garbage.json: not a summary.json plantcheck wrote (it does not follow summary.schema.json)"},
		{"a file that is not there", []string{good, filepath.Join(dir, "none.json")}, 2, "none.json"},
		{"no file", nil, 2, "no summary.json named"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			code, stdout, stderr := invoke(t, nil, append([]string{"merge", "--report-dir", out}, c.files...)...)
			if code != c.exit || !strings.Contains(stdout+stderr, c.want) {
				t.Fatalf("exit %d, want %d naming %q\n%s\n%s", code, c.exit, c.want, stdout, stderr)
			}
			if code == 2 {
				return
			}
			b, err := os.ReadFile(filepath.Join(out, verdict.SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := verdict.CheckSummary(b); err != nil {
				t.Errorf("the merged summary.json does not follow the schema: %v", err)
			}
			for _, f := range []string{verdict.SummaryMD, verdict.ReportHTML, verdict.BadgeSVG, verdict.JUnitXML} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

// postJSON sends a create with the token to base.
func postJSON(t *testing.T, base, token, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/plants", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
