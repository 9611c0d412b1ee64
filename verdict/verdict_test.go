package verdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/rules"
)

// standing builds a verdict of a driver with one MUST rule of the given
// outcome and the given counts, decided.
func standing(d Driver, o Outcome, c Counts, cfg Config) *Verdict {
	v := &Verdict{Driver: d, Counts: c, Config: cfg}
	v.Stamp(`<script>alert("t")</script>`+"\u202e", "1.0.0")
	v.Rules = []Rule{{ID: rules.Create200, Level: rules.Must, Outcome: o}}
	v.Finish()
	return v
}

// TestDecide: one decision for both drivers. A MUST rule broken is 1; a
// run that could not judge a MUST rule, or a proxy that had traffic and
// judged none of it, is 2; a proxy with no traffic claims nothing, 0.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        *Verdict
		wantCode int
		status   string
		line     string
	}{
		{"run: conformant", standing(Run, Pass, Counts{Scenarios: 1, Passed: 1}, Config{}), 0, "certified conformant", "CONFORMANT: every MUST rule passed"},
		{"run: a MUST rule failed", standing(Run, Fail, Counts{}, Config{}), 1, "non-conformant", "NON-CONFORMANT: a MUST rule failed"},
		{"run: a MUST rule not judged", standing(Run, NotJudged, Counts{}, Config{}), 2, "incomplete", "INCOMPLETE: not judged: CREATE-200"},
		{"run: an error", standing(Run, Pass, Counts{Errors: 1}, Config{}), 2, "incomplete", "INCOMPLETE: some scenarios could not be judged"},
		{"run: partial", standing(Run, Pass, Counts{}, Config{Tags: "@x"}), 0, "partial: conformant to the rules that ran", "CONFORMANT to the rules that ran"},
		{"proxy: no violation", standing(Proxy, Pass, Counts{Exchanges: 2, Judged: 2}, Config{}), 0, "no violation seen", "NO VIOLATION SEEN"},
		{"proxy: a MUST rule failed", standing(Proxy, Fail, Counts{Exchanges: 2, Judged: 2}, Config{}), 1, "non-conformant", "NON-CONFORMANT: the service broke CREATE-200"},
		{"proxy: clients failed", standing(Proxy, Pass, Counts{Exchanges: 2, Judged: 2, ClientViolations: 1}, Config{StrictClients: true}), 1, "clients failed", "CLIENTS FAILED"},
		{"proxy: traffic, nothing judged", standing(Proxy, NotJudged, Counts{Exchanges: 3}, Config{}), 2, "incomplete", "NOTHING JUDGED, INCOMPLETE"},
		{"proxy: no traffic", standing(Proxy, NotJudged, Counts{}, Config{}), 0, "nothing judged", "NOTHING JUDGED: no exchange passed through"},
		{"proxy: a rule not judged is no failure", standing(Proxy, NotJudged, Counts{Exchanges: 1, Judged: 1}, Config{}), 0, "no violation seen", "NO VIOLATION SEEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.v.ExitCode; got != tc.wantCode {
				t.Errorf("exit %d, want %d (%s)", got, tc.wantCode, tc.v.Verdict)
			}
			if got := tc.v.Status; got != tc.status {
				t.Errorf("status %q, want %q", got, tc.status)
			}
			if !strings.HasPrefix(tc.v.Verdict, tc.line) {
				t.Errorf("verdict %q, want it to begin %q", tc.v.Verdict, tc.line)
			}
		})
	}
}

// TestBadgeAndPage: each standing, of either driver, gets its word on the
// badge and its heading on the page; a hostile title (the badge's only
// text not of plantcheck's making) is escaped.
func TestBadgeAndPage(t *testing.T) {
	for _, tc := range []struct {
		name         string
		v            *Verdict
		word, status string
	}{
		{"run: conformant", standing(Run, Pass, Counts{}, Config{}), "conformant", "certified conformant"},
		{"run: non-conformant", standing(Run, Fail, Counts{}, Config{}), "non-conformant", "non-conformant"},
		{"run: incomplete", standing(Run, NotJudged, Counts{}, Config{}), "incomplete", "incomplete"},
		{"run: partial", standing(Run, Pass, Counts{}, Config{Tags: "@x"}), "partial", "partial: conformant to the rules that ran"},
		{"proxy: no violation", standing(Proxy, Pass, Counts{Exchanges: 1, Judged: 1}, Config{}), "no violation seen", "no violation seen"},
		{"proxy: non-conformant", standing(Proxy, Fail, Counts{Exchanges: 1, Judged: 1}, Config{}), "non-conformant", "non-conformant"},
		{"proxy: clients failed", standing(Proxy, Pass, Counts{Exchanges: 1, Judged: 1, ClientViolations: 1}, Config{StrictClients: true}), "clients failed", "clients failed"},
		{"proxy: nothing judged", standing(Proxy, NotJudged, Counts{}, Config{}), "nothing judged", "nothing judged"},
		{"proxy: traffic, nothing judged", standing(Proxy, NotJudged, Counts{Exchanges: 1}, Config{}), "incomplete", "incomplete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tc.v.WriteFiles(dir); err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{BadgeSVG: ">" + tc.word + "</text>", ReportHTML: "<h1>" + tc.status + "</h1>"} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), want) {
					t.Errorf("%s lacks %q:\n%s", name, want, b)
				}
				if strings.Contains(string(b), "<script") || strings.ContainsRune(string(b), '\u202e') {
					t.Errorf("%s holds the title unescaped:\n%s", name, b)
				}
			}
		})
	}
}

// TestProse: plantcheck's own text shows what it quotes in backticks as
// code on a page, escaped, and an unpaired backtick as it is.
func TestProse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"noted by `plantcheck run`, never failed", "noted by <code>plantcheck run</code>, never failed"},
		{"a <b> and `<i>`", "a &lt;b&gt; and <code>&lt;i&gt;</code>"},
		{"one ` alone", "one ` alone"},
		{"`a` and `b", "<code>a</code> and `b"},
	} {
		if got := string(prose(tc.in)); got != tc.want {
			t.Errorf("prose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
