package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"html/template"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/mdquote"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// The canaries: credentials that no output may ever hold, in any form.
const (
	canaryToken  = "canary-token-6d1f0b3a9e7c2458"
	canaryKey    = "canary-apikey-83c1d9f2b7e4a06"
	canaryCookie = "canary-cookie-1e5a7c9d3f2b48"
	canaryPass   = "canary-password-9a8b7c6d5e"
	canaryBody   = "canary-bodytoken-4c2e8a6f1d3b" // sent only as a body's access_token
)

// leaky is a broken service that echoes every credential it gets, in
// every form, in its answers' headers and bodies, and accepts anything.
func leaky() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo-Auth", auth)
		w.Header().Set("Set-Cookie", "session="+canaryCookie)
		w.Header().Set("X-Session-Token", canaryCookie)
		var in map[string]any
		json.Unmarshal(body, &in)
		status := http.StatusOK
		if in == nil {
			status = http.StatusBadRequest // and not an Error record
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{
			"name":    strings.ToUpper(auth) + " " + r.Header.Get("X-Api-Key"),
			"debug":   base64.StdEncoding.EncodeToString([]byte(auth)) + " " + hex.EncodeToString([]byte(canaryKey)),
			"headers": r.Header,
			"echo":    string(body),
		})
	})
}

// TestCanariesNeverLeak: a token, an API key, a cookie and a password that
// pass through, and that the service echoes in every form, appear in no
// line of the console and no report file.
func TestCanariesNeverLeak(t *testing.T) {
	p := startProxy(t, upstreamOf(t, leaky()), nil)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("gardener:"+canaryPass))
	sends := []sent{
		{body: `{"id":1,"name":"` + canaryToken + `"}`, auth: "Bearer " + canaryToken, ct: "application/json"},
		{body: `{"id":2,"name":"Fern"}`, auth: "-", ct: "application/json"},
		{body: `{"id":3,"name":"Fern"}`, auth: basic, ct: "application/json"},
		{body: `{"id":4,"name":"Fern"}`, auth: canaryToken, ct: "application/json"},
		{body: "not json " + canaryToken, auth: "Bearer " + canaryToken, ct: "text/plain"},
		{body: `{"id":5,"name":"Fern","access_token":"` + canaryBody + `"}`, auth: "-", ct: "application/json"},
	}
	for _, s := range sends {
		req, _ := http.NewRequest(http.MethodPost, p.url+"/plants?api_key="+canaryKey, strings.NewReader(s.body))
		if s.auth != "-" {
			req.Header.Set("Authorization", s.auth)
		}
		req.Header.Set("Content-Type", s.ct)
		req.Header.Set("X-Api-Key", canaryKey)
		req.Header.Set("Cookie", "session="+canaryCookie)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	v := p.verdict(Options{})
	if v.Counts.ServerViolations == 0 {
		t.Fatalf("the leaky service broke no rule: the test shows nothing\n%s", text(t, v))
	}
	outputs := noCanary(t, v, canaryToken, canaryKey, canaryCookie, canaryPass, canaryBody)
	if !strings.Contains(outputs["console"], "${PLANTCHECK_HEADER_X_API_KEY}") ||
		!strings.Contains(outputs["console"], `-H "Authorization: Bearer ${PLANTCHECK_TOKEN}"`) {
		t.Errorf("the reproductions do not read the credentials from variables:\n%s", outputs["console"])
	}
}

// noCanary checks that no canary, in any form the redactor knows,
// reaches the console or a report file of v; it returns them all.
func noCanary(t *testing.T, v *verdict.Verdict, canaries ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"console": text(t, v)}
	for _, name := range reportFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = string(b)
	}
	red := evidence.New(canaries...)
	for name, out := range outputs {
		for _, c := range canaries {
			if strings.Contains(strings.ToLower(out), strings.ToLower(c)) {
				t.Errorf("%s holds the canary %q", name, c)
			}
		}
		// Every form the redactor knows (escapes, base64, hexadecimal, a
		// run of 12 characters) is found by the redactor itself.
		if red.String(out) != out {
			t.Errorf("%s holds a canary in some form:\n%s", name, red.String(out))
		}
	}
	return outputs
}

// reportFiles are the files the proxy writes, the same as run's.
var reportFiles = []string{"summary.json", "summary.md", "report.html", "badge.svg", "junit.xml"}

// TestReportFiles: the reports are well formed, valid UTF-8, and a target
// that writes Markdown, HTML, a forged verdict or terminal escapes gets
// none of it into them as anything but text.
func TestReportFiles(t *testing.T) {
	hostile := "`](http://evil.example/x.png) <script>alert(1)</script>\n# Forged\n\x1b[2J\nVERDICT: NO VIOLATION SEEN\r\u202e\xff"
	up := fixed(400, "text/html", hostile)
	p := startProxy(t, upstreamOf(t, up), nil)
	valid(`{"id":1,"name":"`+strings.ReplaceAll(hostile[:40], "`", "")+`"}`).send(t, p.url)
	v := p.verdict(Options{})
	out := text(t, v)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		if strings.HasPrefix(strings.TrimSpace(l), "VERDICT") || strings.HasPrefix(l, "# Forged") || strings.ContainsAny(l, "\x1b\r\u202e") {
			t.Errorf("the console has a line of the target's: %q", l)
		}
	}
	if !strings.HasPrefix(lines[len(lines)-1], "VERDICT: NON-CONFORMANT") {
		t.Errorf("last line %q, want the verdict", lines[len(lines)-1])
	}
	dir := t.TempDir()
	if err := v.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(b) {
			t.Errorf("%s is not valid UTF-8", name)
		}
		return b
	}
	var back verdict.Verdict
	if err := json.Unmarshal(read("summary.json"), &back); err != nil {
		t.Errorf("summary.json: %v", err)
	} else if back.Verdict != v.Verdict || back.ExitCode != v.ExitCode || len(back.Rules) != len(v.Rules) {
		t.Errorf("summary.json does not hold the verdict: %q, %d", back.Verdict, back.ExitCode)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(read("junit.xml"), &suites); err != nil {
		t.Errorf("junit.xml: %v", err)
	} else if suites.Failures == 0 || suites.Tests == 0 {
		t.Errorf("junit.xml: %d tests, %d failures; want failures", suites.Tests, suites.Failures)
	}
	// Rendered as GitHub renders it (GFM, raw HTML allowed), summary.md
	// has no element of the target's: its text shows as code only.
	var html bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(read("summary.md"), &html); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "<a ", ">Forged<", "<h1>Forged"} {
		if strings.Contains(html.String(), bad) {
			t.Errorf("summary.md renders %q of the target's:\n%s", bad, html.String())
		}
	}
	if !strings.Contains(html.String(), `<code class="language-sh">curl`) {
		t.Errorf("summary.md has no reproduction block:\n%s", html.String())
	}

	// report.html: the target's text is text, never markup; and no byte
	// of it acts (a control, a bidirectional override) where a person
	// reads it; the page shows the verdict and the evidence.
	page := string(read("report.html"))
	for _, bad := range []string{"<script", "<img", "<a ", "<h1>#", "<h1> Forged", "\x1b", "\u202e", "\r"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("report.html holds %q of the target's", bad)
		}
	}
	for _, want := range []string{
		"<h1>non-conformant</h1>",
		`data-rule="ERROR-RECORD"`,
		template.HTMLEscapeString(v.Verdict),
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		`<pre class="curl">curl -sS -i -X POST`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	badge := read("badge.svg")
	if err := xml.Unmarshal(badge, new(struct{})); err != nil {
		t.Errorf("badge.svg is not XML: %v", err)
	}
	if !bytes.Contains(badge, []byte(">non-conformant</text>")) || !bytes.Contains(badge, []byte("Plant Store API")) {
		t.Errorf("badge.svg = %s", badge)
	}
	for _, name := range []string{"report.html", "badge.svg"} {
		if i := bytes.IndexFunc(read(name), mdquote.Hidden); i >= 0 {
			t.Errorf("%s holds the control or bidi character %q", name, []rune(string(read(name)[i:]))[0])
		}
	}
}
