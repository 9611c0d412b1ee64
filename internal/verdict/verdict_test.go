package verdict

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/htmlpage"
	"github.com/plantcheck/plantcheck/spec/rules"
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

// strict is a run's verdict in strict mode with a MUST and a SHOULD rule
// of the given outcomes, decided.
func strict(must, should Outcome) *Verdict {
	v := &Verdict{Driver: Run, Counts: Counts{Scenarios: 2}, Config: Config{Strict: true}}
	v.Stamp("Plant Store API", "1.0.0")
	v.Rules = []Rule{{ID: rules.Create200, Level: rules.Must, Outcome: must}, {ID: rules.AuthSchemeCase, Level: rules.Should, Outcome: should}}
	v.Finish()
	return v
}

// TestDecide: one decision for both drivers. A MUST rule broken is 1; a
// run that could not judge a MUST rule, or a proxy that had traffic and
// judged none of it, is 2; a proxy with no traffic claims nothing, 0.
func TestDecide(t *testing.T) {
	t.Parallel()
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
		{"run, strict: a SHOULD rule failed", strict(Pass, Fail), 1, "non-conformant", "NON-CONFORMANT (strict): a SHOULD rule failed; every MUST rule that ran passed"},
		{"run, strict: both failed", strict(Fail, Fail), 1, "non-conformant", "NON-CONFORMANT: a MUST rule failed, and (strict) a SHOULD rule"},
		{"run, strict: a MUST rule failed", strict(Fail, Pass), 1, "non-conformant", "NON-CONFORMANT: a MUST rule failed"},
		{"run, strict: conformant", strict(Pass, Pass), 0, "certified conformant", "CONFORMANT: every MUST rule passed"},
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
	t.Parallel()
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
	t.Parallel()
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

// TestReproNote: the note under the failures names the variables the
// reproductions read, every one of them, and how to set the token's from
// where it came; none when they read none, or for the bundled reference.
func TestReproNote(t *testing.T) {
	t.Parallel()
	token := `curl -sS -H "Authorization: Bearer ${PLANTCHECK_TOKEN}" 'http://x/plants'`
	both := token + ` -H "X-Api-Key: ${PLANTCHECK_HEADER_X_API_KEY}" -H "Cookie: ${PLANTCHECK_COOKIE}"`
	for _, c := range []struct {
		name, repro, from string
		reference         bool
		want, not         []string
		rerun             string
	}{
		{"token from the environment", token, "PLANTCHECK_TOKEN", false, []string{"read $PLANTCHECK_TOKEN;"}, []string{"came from"}, ""},
		{"token from a file", token, "--token-file secrets/t k.txt", false,
			[]string{"came from --token-file secrets/t k.txt", `export PLANTCHECK_TOKEN="$(cat 'secrets/t k.txt')"`}, nil, ""},
		{"token from the config file", token, "the config file plantcheck.yaml (key token)", false,
			[]string{"came from the config file plantcheck.yaml (key token)"}, []string{"cat"}, ""},
		{"header and cookie variables", both, "--token", false,
			[]string{"$PLANTCHECK_COOKIE, $PLANTCHECK_HEADER_X_API_KEY, $PLANTCHECK_TOKEN", "PLANTCHECK_HEADER_<NAME> holds the value of the --header"}, nil, ""},
		{"proxy credentials", token + ` --proxy "http://${PLANTCHECK_PROXY_USERINFO}@"'proxy:3128'`, "PLANTCHECK_TOKEN", false,
			[]string{"$PLANTCHECK_PROXY_USERINFO, $PLANTCHECK_TOKEN", "PLANTCHECK_PROXY_USERINFO holds the user:password of the proxy's URL"}, nil, ""},
		{name: "a variable the rerun reads", repro: token, from: "PLANTCHECK_TOKEN", rerun: `plantcheck run --header "X-Api-Key: ${PLANTCHECK_HEADER_X_API_KEY}" --tags '@CREATE-200'`,
			want: []string{"$PLANTCHECK_HEADER_X_API_KEY, $PLANTCHECK_TOKEN"}},
		{"no variable read", `curl -sS 'http://x/plants'`, "--token", false, nil, []string{"curl commands"}, ""},
		{"the bundled reference", token, "", true, nil, []string{"curl commands"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := &Verdict{Driver: Run, Reference: c.reference, TokenFrom: c.from,
				Failures: []Block{{Evidence: []Evidence{{Reproduce: c.repro}}, Rerun: c.rerun}}}
			note := v.ReproNote()
			for _, w := range c.want {
				if !strings.Contains(note, w) {
					t.Errorf("note %q lacks %q", note, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(note, n) {
					t.Errorf("note %q holds %q", note, n)
				}
			}
			if len(c.want) == 0 && note != "" {
				t.Errorf("note %q, want none", note)
			}
		})
	}
}

// TestReproNoteInTheReports: summary.md and report.html carry the note on
// the reproductions' variables too, every variable and the way to set the
// token from the file it came from; report.html no longer says the curl
// commands need PLANTCHECK_TOKEN alone.
func TestReproNoteInTheReports(t *testing.T) {
	t.Parallel()
	v := standing(Run, Fail, Counts{}, Config{})
	v.TokenFrom = "--token-file secrets/t.txt"
	v.Failures = []Block{{Heading: "CREATE-200 (MUST) x", Rule: rules.Create200, Level: rules.Must, Side: "server", Outcome: Fail,
		Evidence: []Evidence{{Reproduce: `curl -sS -H "Authorization: Bearer ${PLANTCHECK_TOKEN}" -H "X-Api-Key: ${PLANTCHECK_HEADER_X_API_KEY}" 'http://x/plants'`}}}}
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	for name, wants := range map[string][]string{
		SummaryMD:  {"**Variables:** `The curl commands and reruns read $PLANTCHECK_HEADER_X_API_KEY, $PLANTCHECK_TOKEN", `export PLANTCHECK_TOKEN="$(cat 'secrets/t.txt')"`},
		ReportHTML: {`<p id="variables">The curl commands and reruns read $PLANTCHECK_HEADER_X_API_KEY, $PLANTCHECK_TOKEN`, `export PLANTCHECK_TOKEN=&#34;$(cat &#39;secrets/t.txt&#39;)&#34;`},
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range wants {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if strings.Contains(string(b), "with <code>PLANTCHECK_TOKEN</code> set") {
			t.Errorf("%s says the curl commands need PLANTCHECK_TOKEN alone", name)
		}
	}
}

// TestConsoleResultIsShort: the console's RESULT column is a word and a
// count, whatever the rule's outcome and however long the reason it was
// not judged (issue 26): the reasons follow the table.
func TestConsoleResultIsShort(t *testing.T) {
	t.Parallel()
	const long = "the target stopped answering; stopped by another rule's failure; no answer"
	short := regexp.MustCompile(`^(pass|noted|FAIL|ERROR|not judged|not run)( \(\d+(/\d+| of \d+)?\))?$`)
	for _, d := range []Driver{Run, Proxy} {
		v := &Verdict{Driver: d}
		v.Stamp("Plant Store API", "1.0.0")
		v.Rules = []Rule{
			{ID: "A-PASS", Level: rules.Must, Outcome: Pass, Scenarios: 4, Judged: 4},
			{ID: "B-PART", Level: rules.Must, Outcome: Pass, Scenarios: 4, Judged: 1, NotJudgedBecause: long},
			{ID: "C-OPEN", Level: rules.Open, Outcome: Pass, Scenarios: 2, Judged: 1, NotJudgedBecause: long},
			{ID: "D-FAIL", Level: rules.Must, Outcome: Fail, Scenarios: 3, Judged: 30, Failures: 12},
			{ID: "E-ERROR", Level: rules.Should, Outcome: Error, Scenarios: 1},
			{ID: "F-UNJUDGED", Level: rules.Must, Outcome: NotJudged, Scenarios: 2, NotJudgedBecause: long},
			{ID: "G-UNJUDGED", Level: rules.Should, Outcome: NotJudged, Scenarios: 2, NotJudgedBecause: "no answer"},
			{ID: "H-SKIP", Level: rules.Should, Outcome: Skip},
		}
		v.Finish()
		// --verbose: every rule a row of the table.
		var b strings.Builder
		if err := v.WriteText(&b, TextOptions{Verbose: true}); err != nil {
			t.Fatal(err)
		}
		for _, r := range v.Rules {
			w := v.shortWord(r)
			if !short.MatchString(w) {
				t.Errorf("%s %s: RESULT %q is not a word and a count", d, r.ID, w)
			}
			if row := regexp.MustCompile(`(?m)^` + string(r.ID) + ` +[A-Z]+ +` + regexp.QuoteMeta(w) + `  `); !row.MatchString(b.String()) {
				t.Errorf("%s %s: no table row with RESULT %q:\n%s", d, r.ID, w, b.String())
			}
		}
		// The brief console: a rule broken (D-FAIL) leads, under To fix;
		// the rules that simply passed are counted; a rule not judged, or
		// judged in part, is named once with its reason; the rest are
		// rows of the table.
		b.Reset()
		if err := v.WriteText(&b, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		console := b.String()
		passed := 0 // as the MUST and SHOULD counts say: open rules are noted, never passed
		for _, r := range v.Rules {
			if r.Outcome == Pass && r.Level != rules.Open && v.partlyJudged(r) {
				passed++
			}
			switch {
			case r.Outcome == Pass && r.Level == rules.Open:
				if regexp.MustCompile(`(?m)^` + string(r.ID) + ` `).MatchString(console) {
					t.Errorf("%s %s: an open rule is a row of the brief table:\n%s", d, r.ID, console)
				}
			case r.Outcome == Pass && !v.partlyJudged(r):
				passed++
			case r.Outcome == Fail:
				if !regexp.MustCompile(`(?m)^  ` + string(r.ID) + ` \(MUST\), 12 failures`).MatchString(console) {
					t.Errorf("%s %s: not under To fix:\n%s", d, r.ID, console)
				}
			case r.NotJudgedBecause != "":
				if n := strings.Count(console, string(r.ID)+" ("); n != 1 {
					t.Errorf("%s %s: named %d times, want once with its reason:\n%s", d, r.ID, n, console)
				}
			default:
				if row := regexp.MustCompile(`(?m)^` + string(r.ID) + ` +[A-Z]+ +` + regexp.QuoteMeta(v.shortWord(r)) + `  `); !row.MatchString(console) {
					t.Errorf("%s %s: no table row:\n%s", d, r.ID, console)
				}
			}
		}
		if want := fmt.Sprintf("Passed: %d rule", passed); !strings.Contains(console, want) {
			t.Errorf("%s: no %q:\n%s", d, want, console)
		}
		if d == Run && !strings.Contains(console, "B-PART (MUST, judged by 1 of 4 scenarios), C-OPEN (OPEN, judged by 1 of 2 scenarios), F-UNJUDGED (MUST): "+long) {
			t.Errorf("the long reason is not said once after the table:\n%s", console)
		}
	}
}

// TestReferenceNamedInEveryReport: a run of the bundled reference server
// says so where the target goes in every report, its verdict's sentence
// says so, and its badge is grey and says "bundled reference", so that
// none of them reads as a certificate of the user's service.
func TestReferenceNamedInEveryReport(t *testing.T) {
	t.Parallel()
	const url = "http://127.0.0.1:4321/plants"
	v := standing(Run, Pass, Counts{Scenarios: 1, Passed: 1}, Config{})
	v.OnReference(url)
	if got, want := v.Target, ReferenceTarget+" (in-process, "+url+")"; got != want {
		t.Errorf("Target = %q, want %q", got, want)
	}
	if !strings.HasSuffix(v.Verdict, "[target: "+ReferenceTarget+", not a server of yours]") {
		t.Errorf("Verdict = %q, want it to name %s", v.Verdict, ReferenceTarget)
	}
	var text strings.Builder
	if err := v.WriteText(&text, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ name, got, want string }{
		{"console", text.String(), "target: " + ReferenceTarget + " (in-process, " + url + ")\n"},
		{"console verdict", text.String(), "VERDICT: CONFORMANT: every MUST rule passed [target: " + ReferenceTarget},
		{SummaryJSON, read(SummaryJSON), `"target": "` + ReferenceTarget + ` (in-process, ` + url + `)"`},
		{SummaryJSON + " verdict", read(SummaryJSON), `"verdict": "CONFORMANT: every MUST rule passed [target: ` + ReferenceTarget},
		{SummaryMD, read(SummaryMD), "| Target | `" + ReferenceTarget + " (in-process, " + url + ")` |"},
		{ReportHTML, read(ReportHTML), "<dd><code>" + ReferenceTarget + " (in-process, " + url + ")</code></dd>"},
		{JUnitXML, read(JUnitXML), `on ` + ReferenceTarget + ` (certified conformant)"`},
		{BadgeSVG, read(BadgeSVG), ">bundled reference: "},
		{BadgeSVG + " colour", read(BadgeSVG), `fill="` + htmlpage.Neutral + `"`},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s lacks %q:\n%s", tc.name, tc.want, tc.got)
		}
	}
	if badge := read(BadgeSVG); strings.Contains(badge, htmlpage.Pass) {
		t.Errorf("the badge of a reference run is green:\n%s", badge)
	}
}

// TestReportsCarryVersions: summary.json, the badge and report.html name
// the plantcheck that judged beside the spec's version; a version read
// from a file (merge) is escaped and bounded on the badge.
func TestReportsCarryVersions(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 200)
	for _, tc := range []struct {
		name, version string
		badge, page   string // in the badge; in report.html
		never         string // in neither
	}{
		{name: "a release", version: "v9.8.7", badge: " 1.0.0 (plantcheck v9.8.7)</text>", page: "plantcheck v9.8.7"},
		{name: "a pseudo-version", version: "v0.0.0-20261124113814-9d85ac9a6dd3", badge: "(plantcheck v0.0.0-20261124113814-9d85ac9a6dd3)</text>", page: "plantcheck v0.0.0-20261124113814-9d85ac9a6dd3"},
		{name: "none", version: "", badge: "(plantcheck unknown)</text>", page: "Written by plantcheck ."},
		{name: "hostile", version: "<script>" + long, badge: "(plantcheck &lt;script&gt;" + long[:40] + "...)</text>", page: "plantcheck &lt;script&gt;", never: "<script>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := standing(Run, Pass, Counts{Scenarios: 1, Passed: 1}, Config{})
			v.Plantcheck.Version = tc.version
			dir := t.TempDir()
			if err := v.WriteFiles(dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Plantcheck struct{ Version string } `json:"plantcheck"`
				Spec       struct{ Version string } `json:"spec"`
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Plantcheck.Version != tc.version || s.Spec.Version != "1.0.0" {
				t.Errorf("summary.json: plantcheck %q, spec %q; want %q, %q", s.Plantcheck.Version, s.Spec.Version, tc.version, "1.0.0")
			}
			for name, want := range map[string]string{BadgeSVG: tc.badge, ReportHTML: tc.page} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), want) {
					t.Errorf("%s lacks %q:\n%s", name, want, b)
				}
				if name == BadgeSVG && !strings.Contains(string(b), " 1.0.0 (plantcheck ") {
					t.Errorf("the badge does not give the spec's version beside plantcheck's:\n%s", b)
				}
				if tc.never != "" && strings.Contains(string(b), tc.never) {
					t.Errorf("%s holds %q", name, tc.never)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, BadgeSVG)); strings.Contains(string(b), long[:60]) {
				t.Error("the badge holds the whole of a long version")
			}
		})
	}
}

// TestProxyConsoleSaysItsCounts: a proxy's block, some of its failures
// kept and some counted only, gets one line of what is not shown, and the
// note on its header variables speaks of the clients' headers, not of a
// --header the proxy does not have.
func TestProxyConsoleSaysItsCounts(t *testing.T) {
	t.Parallel()
	v := standing(Proxy, Fail, Counts{}, Config{})
	ev := Evidence{Rule: rules.ResponseDocumented, Level: rules.Must, Expected: "a documented answer", Actual: "201", Status: 201, MediaType: "application/json",
		Request: "POST /plants", Response: "201", Reproduce: `curl -sS -H "X-Auth-Token: ${PLANTCHECK_HEADER_X_AUTH_TOKEN}" 'http://x/plants'`}
	v.Failures = []Block{{Heading: "RESPONSE-DOCUMENTED (MUST)", Rule: rules.ResponseDocumented, Level: rules.Must, Side: "server", Outcome: Fail,
		Evidence: []Evidence{ev, ev, ev}, More: 10}}
	var b strings.Builder
	if err := v.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "more failure"); n != 1 {
		t.Errorf("%d lines of more failures, want 1:\n%s", n, out)
	}
	for _, want := range []string{"(and 12 more failures of RESPONSE-DOCUMENTED, 10 of them counted, not kept)", "the client sent in the header of that name"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--header") {
		t.Errorf("the console speaks of a --header:\n%s", out)
	}
}
