package proxy

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/har"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// recordedEntry is a HAR entry of a valid create answered by the
// reference: POST http://svc.test/plants, a Bearer token, 200 and a Plant
// record.
func recordedEntry() har.Entry {
	text := func(s string) *string { return &s }
	req := `{"id":1,"name":"Rose"}`
	resp := `{"name":"Rose"}`
	return har.Entry{
		StartedDateTime: "2026-11-25T10:00:00.000Z", Time: 2,
		Request: har.Request{
			Method: "POST", URL: "http://svc.test/plants", HTTPVersion: "HTTP/1.1",
			Headers: []har.NameValue{
				{Name: "authorization", Value: "Bearer recorded-secret-token-1234"},
				{Name: "content-type", Value: "application/json"},
				{Name: ":authority", Value: "svc.test"},
			},
			PostData: &har.PostData{MimeType: "application/json", Text: text(req)}, BodySize: int64(len(req)), HeadersSize: -1,
		},
		Response: har.Response{
			Status: 200, HTTPVersion: "HTTP/1.1",
			Headers: []har.NameValue{{Name: "Content-Type", Value: "application/json"}},
			Content: har.Content{Size: int64(len(resp)), MimeType: "application/json", Text: text(resp)}, BodySize: int64(len(resp)),
		},
	}
}

// judgeEntries writes the entries as a HAR file, reads it back as judge
// does, and judges it.
func judgeEntries(t *testing.T, cfg config.Judge, es ...har.Entry) *verdict.Verdict {
	t.Helper()
	type log struct {
		Version string      `json:"version"`
		Entries []har.Entry `json:"entries"`
	}
	b, err := json.Marshal(struct {
		Log log `json:"log"`
	}{log{"1.2", es}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "test.har")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Files, cfg.MaxJudge, cfg.MaxFile = []string{file}, config.DefaultMaxJudge, config.MaxFile
	v, err := JudgeFiles(cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRecordingEdges judges recorded exchanges that a recording cut,
// redacted or left out: each is counted and said, never judged as a
// failure; a real failure still fails.
func TestRecordingEdges(t *testing.T) {
	text := func(s string) *string { return &s }
	for _, tc := range []struct {
		name     string
		cfg      config.Judge
		mod      func(e *har.Entry)
		fails    string // the rules failed, comma-separated
		exit     int
		judged   int64
		outside  int64
		reason   string // a reason counted as not judged in part
		noReason bool   // no reason at all
	}{
		{name: "whole", mod: func(*har.Entry) {}, judged: 1, noReason: true},
		{name: "undocumented status still fails", mod: func(e *har.Entry) { e.Response.Status = 201 },
			fails: "RESPONSE-DOCUMENTED", exit: 1, judged: 1},
		{name: "response cut: size past the text", mod: func(e *har.Entry) {
			e.Response.Content.Text, e.Response.Content.Size = text(`{"name":"Ro`), 400
		}, judged: 1, reason: "response body cut by the recording (11 of 400 bytes)"},
		{name: "response cut: comment", mod: func(e *har.Entry) {
			e.Response.Content.Text, e.Response.Content.Size, e.Response.Content.Comment = text(`{"name":"Ro`), 0, "body truncated"
		}, judged: 1, reason: "response body cut by the recording (its comment says so)"},
		{name: "response left out", mod: func(e *har.Entry) { e.Response.Content.Text = nil },
			judged: 1, reason: "response body not in the recording (15 bytes sent)"},
		{name: "request cut: size past the text", mod: func(e *har.Entry) {
			e.Request.PostData.Text, e.Request.BodySize = text(`{"id":1,"na`), 22
		}, judged: 1, reason: "request body cut by the recording (11 of 22 bytes)"},
		{name: "request left out, size unknown", mod: func(e *har.Entry) { e.Request.PostData, e.Request.BodySize = nil, -1 },
			judged: 1, reason: "request body not in the recording"},
		{name: "Authorization redacted whole", mod: func(e *har.Entry) { e.Request.Headers[0].Value = "<redacted>" },
			judged: 1, reason: whyAuthRedacted},
		{name: "Authorization as stars", mod: func(e *har.Entry) { e.Request.Headers[0].Value = "********" },
			judged: 1, reason: whyAuthRedacted},
		{name: "Bearer and a redacted credential: the shape is known", mod: func(e *har.Entry) { e.Request.Headers[0].Value = "Bearer [REDACTED]" },
			judged: 1, noReason: true},
		{name: "a cookie redacted", mod: func(e *har.Entry) {
			e.Request.Headers = append(e.Request.Headers, har.NameValue{Name: "Cookie", Value: "REDACTED"})
		}, judged: 1, reason: whyRedacted},
		{name: "Authorization stripped: missing, judged as missing", mod: func(e *har.Entry) { e.Request.Headers = e.Request.Headers[1:] },
			fails: "AUTH-MISSING", exit: 1, judged: 1},
		{name: "Authorization stripped, --auth-stripped", cfg: config.Judge{AuthStripped: true},
			mod: func(e *har.Entry) { e.Request.Headers = e.Request.Headers[1:] }, judged: 1, reason: whyAuthStripped},
		{name: "another path", mod: func(e *har.Entry) { e.Request.URL = "http://svc.test/plants/1" }, outside: 1, exit: 2},
		{name: "another method", mod: func(e *har.Entry) { e.Request.Method = "GET" }, outside: 1, exit: 2},
		{name: "under the base path", cfg: config.Judge{Base: mustURL("/v1")},
			mod: func(e *har.Entry) { e.Request.URL = "http://svc.test/v1/plants" }, judged: 1, noReason: true},
		{name: "not under the base path", cfg: config.Judge{Base: mustURL("/v1")}, mod: func(*har.Entry) {}, outside: 1, exit: 2},
		{name: "another host than --base-url's", cfg: config.Judge{Base: mustURL("http://other.test")}, mod: func(*har.Entry) {}, outside: 1, exit: 2},
		{name: "base64 bodies", mod: func(e *har.Entry) {
			e.Response.Content.Text, e.Response.Content.Encoding = text(base64.StdEncoding.EncodeToString([]byte(`{"name":"Rose"}`))), "base64"
			e.Request.PostData.Text, e.Request.PostData.Encoding = text(base64.StdEncoding.EncodeToString([]byte(`{"id":1,"name":"Rose"}`))), "base64"
		}, judged: 1, noReason: true},
		{name: "base64 body echoing another name fails", mod: func(e *har.Entry) {
			e.Response.Content.Text, e.Response.Content.Encoding = text(base64.StdEncoding.EncodeToString([]byte(`{"name":"Rosa"}`))), "base64"
		}, fails: "CREATE-NAME", exit: 1, judged: 1},
		{name: "no answer recorded", mod: func(e *har.Entry) { e.Response.Status = 0 }, exit: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := recordedEntry()
			tc.mod(&e)
			v := judgeEntries(t, tc.cfg, e)
			if got := strings.Join(failing(v), ","); got != tc.fails {
				t.Errorf("fails %q, want %q", got, tc.fails)
			}
			if v.ExitCode != tc.exit {
				t.Errorf("exit %d, want %d (%s)", v.ExitCode, tc.exit, v.Verdict)
			}
			if v.Counts.Judged != tc.judged || v.Counts.OutsideDocument != tc.outside {
				t.Errorf("judged %d, outside %d; want %d, %d", v.Counts.Judged, v.Counts.OutsideDocument, tc.judged, tc.outside)
			}
			var reasons []string
			for _, c := range v.NotJudgedInPart {
				reasons = append(reasons, c.Reason)
			}
			if tc.reason != "" && !slices.Contains(reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", reasons, tc.reason)
			}
			if tc.noReason && len(reasons) > 0 {
				t.Errorf("reasons %q, want none", reasons)
			}
			b, _ := json.Marshal(v)
			if strings.Contains(string(b), "recorded-secret-token-1234") {
				t.Error("the verdict holds the recording's token")
			}
		})
	}
}

func failing(v *verdict.Verdict) []string {
	var out []string
	for _, r := range v.Rules {
		if r.Failures > 0 {
			out = append(out, string(r.ID))
		}
	}
	return out
}

// TestRecordedTargetFaults: an exchange `run --har` recorded with no
// answer because the target refused, reset or closed the connection, or
// did not answer in time, is the target's fault, never a client that went
// away; it is not judged, but the verdict cannot read "no violation seen"
// with exit 0 beside it (the run of the same traffic erred or failed). The
// run's own cancellation is the client going away.
// TestARetryCuresARecordedFault: run sends a request again on a connection
// fault, and its recording holds both tries. A fault a later try of the
// very same request was answered after is no fault of the verdict's; a
// fault of another request stays one, and so does one answered before it.
func TestARetryCuresARecordedFault(t *testing.T) {
	t.Parallel()
	fault := recordedEntry()
	fault.Response = har.Response{Status: 0}
	fault.Comment = har.NoAnswer + "read tcp 127.0.0.1:54582->127.0.0.1:18123: read: connection reset by peer"
	other := recordedEntry()
	body := `{"id":2,"name":"Rose"}`
	other.Request.PostData = &har.PostData{MimeType: "application/json", Text: &body}
	for _, tc := range []struct {
		name    string
		entries []har.Entry
		exit    int
		target  int64
	}{
		{"the fault, then the same request answered", []har.Entry{fault, recordedEntry()}, 0, 0},
		{"the same request answered, then the fault", []har.Entry{recordedEntry(), fault}, 2, 1},
		{"the fault, then another request answered", []har.Entry{fault, other}, 2, 1},
		{"two faults, one answer", []har.Entry{fault, fault, recordedEntry()}, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := judgeEntries(t, config.Judge{}, tc.entries...)
			if v.ExitCode != tc.exit || v.Counts.UpstreamBrokeOff != tc.target {
				t.Errorf("exit %d with %d exchanges unanswered (%q); want exit %d with %d", v.ExitCode, v.Counts.UpstreamBrokeOff, v.Verdict, tc.exit, tc.target)
			}
		})
	}
}

func TestRecordedTargetFaults(t *testing.T) {
	t.Parallel()
	const dial = "dial tcp 127.0.0.1:18123: connect: connection refused"
	for _, tc := range []struct {
		name          string
		comment       string
		fails         bool // the answered exchange breaks a MUST rule
		exit          int
		target, gone  int64
		verdictPrefix string
	}{
		{"refused", har.NoAnswer + "Post \"http://svc.test/plants\": " + dial, false, 2, 1, 0, "INCOMPLETE: the upstream gave no whole answer to 1 exchange"},
		{"reset", har.NoAnswer + "read tcp 127.0.0.1:54582->127.0.0.1:18123: read: connection reset by peer", false, 2, 1, 0, "INCOMPLETE"},
		{"closed with no answer", har.NoAnswer + "EOF", false, 2, 1, 0, "INCOMPLETE"},
		{"late", har.NoAnswer + "context deadline exceeded (Client.Timeout exceeded while awaiting headers)", false, 2, 1, 0, "INCOMPLETE"},
		{"refused, and a MUST rule failed", har.NoAnswer + dial, true, 1, 1, 0, "NON-CONFORMANT"},
		{"the run cancelled", har.NoAnswer + "Post \"http://svc.test/plants\": context canceled", false, 0, 0, 1, "NO VIOLATION SEEN"},
		{"no comment", "", false, 0, 0, 1, "NO VIOLATION SEEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			answered, none := recordedEntry(), recordedEntry()
			if tc.fails {
				answered.Response.Status = 201
			}
			none.Response = har.Response{Status: 0}
			none.Comment = tc.comment
			v := judgeEntries(t, config.Judge{}, answered, none)
			if v.ExitCode != tc.exit || !strings.HasPrefix(v.Verdict, tc.verdictPrefix) {
				t.Errorf("exit %d, %q; want exit %d, %q...", v.ExitCode, v.Verdict, tc.exit, tc.verdictPrefix)
			}
			if v.Counts.UpstreamBrokeOff != tc.target || v.Counts.ClientGone != tc.gone || v.Counts.Judged != 1 {
				t.Errorf("no answer from the target %d, client gone %d, judged %d; want %d, %d, 1",
					v.Counts.UpstreamBrokeOff, v.Counts.ClientGone, v.Counts.Judged, tc.target, tc.gone)
			}
		})
	}
}
