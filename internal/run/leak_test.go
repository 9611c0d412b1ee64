package run

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// canaryToken holds a slash and a plus, so that its JSON, URL and base64
// forms differ from it.
const canaryToken = "Canary/Tok+en_0123456789-abcdefXYZ"

// echoForms are the ways a hostile target writes the token back: none may
// reach the console or a report.
func echoForms(tok string) map[string]string {
	var allU strings.Builder
	for _, r := range tok {
		fmt.Fprintf(&allU, `\u%04x`, r)
	}
	return map[string]string{
		"as it is":                 tok,
		"lower case":               strings.ToLower(tok),
		"upper case":               strings.ToUpper(tok),
		"slash escaped":            strings.ReplaceAll(tok, "/", `\/`),
		"every character escaped":  allU.String(),
		"URL-escaped":              url.QueryEscape(tok),
		"base64":                   base64.StdEncoding.EncodeToString([]byte(tok)),
		"base64url":                base64.RawURLEncoding.EncodeToString([]byte(tok)),
		"base64 of Bearer <token>": base64.StdEncoding.EncodeToString([]byte("Bearer " + tok)),
		"its first 12 characters":  tok[:min(12, len(tok))],
		"12 from within, lower":    strings.ToLower(tok[min(10, len(tok)):min(22, len(tok))]),
	}
}

// echoingTargetOf is echoingTarget for the secret secretOf finds in a
// request.
func echoingTargetOf(t *testing.T, secretOf func(*http.Request) string) string {
	return handlerTarget(t, func(w http.ResponseWriter, r *http.Request) {
		tok := secretOf(r)
		// The forms are written into the JSON text as they are: the
		// escaped ones stay escaped in the bytes sent.
		msg := strings.Repeat("a", 500) + tok + " " // across the cut
		for _, f := range echoForms(tok) {
			msg += strings.ReplaceAll(f, `"`, "") + " "
		}
		body := []byte(`{"error":1,"message":"` + msg + `"}`)
		w.Header().Set("Content-Type", "application/json; echo="+strings.ToLower(tok))
		w.Header().Set("X-Echo", base64.StdEncoding.EncodeToString([]byte("Bearer "+tok)))
		w.WriteHeader(http.StatusBadRequest)
		w.Write(body)
	})
}

// outputs returns the console output and every report file of a run.
func outputs(t *testing.T, console, dir string) map[string]string {
	out := map[string]string{"console": console}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// canaryKey is a gateway's key, sent with --header: a secret like the token.
const canaryKey = "Gw/Key+canary_9876543210-zyxwvuQRS"

// TestNoFormOfTheTokenLeaks: a target that echoes the token, or a header
// value given with --header, in every form a server may (its case changed,
// escaped for JSON or URLs, in base64, cut to 12 characters, across the cut
// of an evidence string) gets none of them into the console or a report.
func TestNoFormOfTheTokenLeaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		secret   string
		headers  http.Header
		secretOf func(*http.Request) string
	}{
		{"the token", canaryToken, nil, func(r *http.Request) string {
			return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}},
		{"a header value", canaryKey, http.Header{"X-Api-Key": {canaryKey}}, func(r *http.Request) string { return r.Header.Get("X-Api-Key") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := echoingTargetOf(t, tt.secretOf)
			// The test can fail: the target does send every form.
			req, _ := http.NewRequest(http.MethodPost, base+"/plants", strings.NewReader("{}"))
			req.Header.Set("Authorization", "Bearer "+canaryToken)
			req.Header.Set("X-Api-Key", canaryKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			sent := string(raw) + resp.Header.Get("Content-Type") + resp.Header.Get("X-Echo")
			for name, f := range echoForms(tt.secret) {
				if !strings.Contains(sent, f) {
					t.Fatalf("the target does not send the form %s", name)
				}
			}

			dir := t.TempDir()
			var console strings.Builder
			rep, err := runWith(context.Background(), Config{BaseURL: base, Token: canaryToken, Headers: tt.headers, ReportDir: dir, Tags: "@area-create,@area-auth"}, Options{Output: &console})
			if err != nil {
				t.Fatal(err)
			}
			rep.WriteVerdict(&console)
			if rep.ExitCode() != 1 {
				t.Fatalf("exit code %d, want 1", rep.ExitCode())
			}
			for file, text := range outputs(t, console.String(), dir) {
				for name, f := range echoForms(tt.secret) {
					if i := strings.Index(text, f); i >= 0 {
						t.Errorf("%s holds the secret %s: …%s…", file, name, text[max(0, i-40):min(len(text), i+len(f)+40)])
					}
				}
				low := strings.ToLower(text)
				for i := 0; i+12 <= len(tt.secret); i++ {
					if w := strings.ToLower(tt.secret[i : i+12]); strings.Contains(low, w) {
						t.Errorf("%s holds 12 consecutive characters of the secret: %q", file, w)
					}
				}
			}
			if !strings.Contains(console.String(), "<redacted>") {
				t.Error("the console shows no redaction: the echoed evidence is not there to judge")
			}
		})
	}
}

// TestTheConsoleShowsText: a target that sends terminal commands (C0 and
// C1 controls, an escape sequence that clears the screen, a bidirectional
// override), bytes that are not UTF-8 and a forged verdict on a line of its
// own, in its Content-Type and its body, gets only escaped text onto the
// console, and the verdict is the last line and the only one.
func TestTheConsoleShowsText(t *testing.T) {
	t.Parallel()
	const forged = "\nVERDICT: CONFORMANT: every MUST rule passed\n"
	body := `{"error":1,"message":"x"}` + forged + "\x1b[2J\x1b[H\u202eevil\xc2\x9b2J\xff"
	base := rawTarget(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; x=\x1b[2J\xc2\x9b\x9b\u202e\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}
	})
	var console strings.Builder
	rep, err := runWith(context.Background(), Config{BaseURL: base, Token: hostileToken, Tags: "@area-create"}, Options{Output: &console})
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&console)
	out := console.String()
	if !strings.Contains(out, `\x1b[2J`) {
		t.Fatalf("the console does not show the target's escape sequence as text: the test cannot fail\n%s", out)
	}
	if !utf8.ValidString(out) {
		t.Error("the console output is not UTF-8")
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f {
			t.Errorf("the console holds U+%04X raw: …%q…", r, out[max(0, i-30):min(len(out), i+30)])
			break
		}
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	verdicts := 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "VERDICT:") {
			verdicts++
		}
	}
	if last := lines[len(lines)-1]; verdicts != 1 || !strings.HasPrefix(last, "VERDICT: NON-CONFORMANT") {
		t.Errorf("%d lines begin with VERDICT:, and the last line is %q; want one, the last, non-conformant", verdicts, last)
	}
}

// TestHugeHeadersAreBounded: targets that send a 9 MiB header on every
// answer, a 1 MiB Content-Type, or a Content-Type just under the header
// bound (which the validator quotes in its messages) end within 90 s at a
// time limit of 2 s, keep at most evidenceHeaderBytes of each header value,
// with under 5 MB of console output and 20 MB of reports.
func TestHugeHeadersAreBounded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sends megabytes of headers")
	}
	header := func(name string, n int) http.HandlerFunc {
		value := strings.Repeat("a", n)
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header()[name] = []string{value}
			if name == "Content-Type" {
				w.Header()[name] = []string{"application/json; x=" + value}
			}
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"no"}`)
		}
	}
	tests := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"a 9 MiB header", header("X-Big", 9<<20)},
		{"a 1 MiB Content-Type", header("Content-Type", 1<<20)},
		{"a Content-Type under the header bound", header("Content-Type", MaxResponseHeaderBytes-4096)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := handlerTarget(t, tt.h)
			dir := t.TempDir()
			var console strings.Builder
			start := time.Now()
			rep, err := runWith(context.Background(), Config{BaseURL: base, Token: hostileToken, Timeout: 2 * time.Second, ReportDir: dir}, Options{Output: &console})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			rep.WriteVerdict(&console)
			reports := int64(0)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if info, err := e.Info(); err == nil {
					reports += info.Size()
				}
			}
			t.Logf("%s: %s, console %d KiB, reports %d KiB, exit %d",
				tt.name, took.Round(time.Millisecond), console.Len()>>10, reports>>10, rep.ExitCode())
			// A bound against a hang, not a measure of speed: measured 4.2
			// to 10.0 s under -race on a loaded two-core machine (3 runs
			// each, 2026-11); beside the package's other tests at a load
			// average of 15 to 20 (2026-11-26), subtests (the run and its
			// checks) of up to 22.7 s; 90 s is four times that.
			if took > 90*time.Second {
				t.Errorf("the run took %s, want under 90 s", took)
			}
			// What the run keeps of the headers, not a heap figure, which
			// the collector and the machine's load move.
			for _, p := range boundedHeaders(rep) {
				t.Error(p)
			}
			for _, p := range boundedReads(rep) {
				t.Error(p)
			}
			if console.Len() > 5<<20 || reports > 20<<20 {
				t.Errorf("console %d bytes, reports %d bytes: want under 5 MB and 20 MB", console.Len(), reports)
			}
			if rep.ExitCode() == 0 {
				t.Error("exit code 0 for a target that answers nothing documented")
			}
		})
	}
}

// TestAnInterruptedRunReportsIt: cancelling a run (what SIGINT and SIGTERM
// do) against a target that never answers ends it long before the time
// limit of an exchange (10 minutes; the bound, 30 s, sits far from both, so
// that a loaded machine cannot make it fail), and the verdict and the
// reports say it was interrupted, with a non-zero status.
func TestAnInterruptedRunReportsIt(t *testing.T) {
	t.Parallel()
	base := rawTarget(t, func(c net.Conn) {
		readRequest(c)
		io.Copy(io.Discard, c) // never answers; ends when the connection does
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	dir := t.TempDir()
	var console strings.Builder
	start := time.Now()
	rep, err := runWith(ctx, Config{BaseURL: base, Token: hostileToken, Timeout: 10 * time.Minute, ReportDir: dir}, Options{Output: &console})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteVerdict(&console)
	if took > 30*time.Second {
		t.Errorf("the run took %s after the interrupt, want it to stop at once, not wait out the exchanges' time limit", took)
	}
	if !rep.Interrupted || rep.ExitCode() == 0 || rep.Conformant() {
		t.Errorf("interrupted %v, exit %d, conformant %v: want interrupted, non-zero, not conformant", rep.Interrupted, rep.ExitCode(), rep.Conformant())
	}
	if !strings.Contains(console.String(), "VERDICT: INTERRUPTED") {
		t.Errorf("the verdict does not say the run was interrupted:\n%s", console.String())
	}
	summary, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
	if err != nil || !strings.Contains(string(summary), `"status": "interrupted`) {
		t.Errorf("summary.json does not say the run was interrupted (%v)", err)
	}
}

// evidenceHeaderBytes bounds a header value kept as evidence: steps cuts it
// to 256 bytes and says its size (" (N bytes in all)"); escaping a byte
// writes at most 4 ("\\xNN").
const evidenceHeaderBytes = 4*256 + 64

// boundedHeaders returns what breaks the bounds of the headers a run kept
// of its answers: 32 fields an exchange, 4 values a field, each value at
// most evidenceHeaderBytes.
func boundedHeaders(rep *Report) []string {
	var problems []string
	for _, sc := range rep.Scenarios {
		for i, x := range sc.Exchanges {
			if len(x.RespHeader) > 32 {
				problems = append(problems, fmt.Sprintf("%s, exchange %d: kept %d header fields, past 32", sc.Name, i+1, len(x.RespHeader)))
			}
			for k, vs := range x.RespHeader {
				if len(vs) > 4 {
					problems = append(problems, fmt.Sprintf("%s, exchange %d: kept %d values of a field, past 4", sc.Name, i+1, len(vs)))
				}
				for _, v := range append([]string{k}, vs...) {
					if len(v) > evidenceHeaderBytes {
						problems = append(problems, fmt.Sprintf("%s, exchange %d: kept a header of %d bytes, past %d", sc.Name, i+1, len(v), evidenceHeaderBytes))
					}
				}
			}
		}
	}
	return problems
}
