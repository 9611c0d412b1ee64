package har

import (
	"cmp"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// TestRoundTrip writes exchanges as run and the proxy write them and reads
// them back as judge does: a body whole reads whole, a cut one (past the
// bound, or not read to its end) reads cut, bytes that are not UTF-8 come
// back as sent (base64), and no secret is written.
func TestRoundTrip(t *testing.T) {
	const token = "tok-0123456789abcdef"
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name      string
		x         exchange.Exchange
		max       int64
		body      string
		bodyWhole bool
		resp      string
		respWhole bool
		auth      string
	}{
		{name: "whole", x: exchange.Exchange{Body: []byte(`{"id":1}`), RespBody: []byte(`{"name":"a"}`)},
			body: `{"id":1}`, bodyWhole: true, resp: `{"name":"a"}`, respWhole: true, auth: "Bearer <token>"},
		{name: "past the bound", max: 10, x: exchange.Exchange{Body: []byte(long), RespBody: []byte(long)},
			body: long[:10], resp: long[:10]},
		{name: "answer not read to its end", x: exchange.Exchange{Body: []byte(`{}`), RespBody: []byte(`{"na`), RespIncomplete: "not read to its end"},
			body: `{}`, bodyWhole: true, resp: `{"na`},
		{name: "not UTF-8", x: exchange.Exchange{Body: []byte{0xff, '{', '}'}, RespBody: []byte{0xfe}},
			body: "\xff{}", bodyWhole: true, resp: "\xfe", respWhole: true},
		{name: "token in the body, hidden, whole", x: exchange.Exchange{Body: []byte(`{"name":"` + token + `"}`), RespBody: []byte(`{}`)},
			body: `{"name":"<token>"}`, bodyWhole: true, resp: `{}`, respWhole: true},
		{name: "another credential", x: exchange.Exchange{Header: http.Header{"Authorization": {"Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng=="}}, RespBody: []byte(`{}`)},
			bodyWhole: true, resp: `{}`, respWhole: true, auth: "Basic <redacted>"},
		{name: "a credential without a scheme", x: exchange.Exchange{Header: http.Header{"Authorization": {"sk-live-0123456789"}}, RespBody: []byte(`{}`)},
			bodyWhole: true, resp: `{}`, respWhole: true, auth: "<credential>"},
		{name: "an empty credential is kept", x: exchange.Exchange{Header: http.Header{"Authorization": {"Bearer  "}}, RespBody: []byte(`{}`)},
			bodyWhole: true, resp: `{}`, respWhole: true, auth: "Bearer  "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := Record{Exchange: tc.x, Started: time.Now()}
			x.Duration, x.Method, x.URL, x.Status = time.Millisecond, "POST", "http://svc.test/plants", 200
			if x.Header == nil {
				x.Header = http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}
			}
			x.RespHeader = http.Header{"Content-Type": {"application/json"}}
			path := filepath.Join(t.TempDir(), "x.har")
			w, err := Create(path, "plantcheck", "test")
			if err != nil {
				t.Fatal(err)
			}
			w.Add(NewEntry(x, NewHider(token, evidence.NewSet(token).Redactor(x.Secrets(true))), cmp.Or(tc.max, MaxBody)))
			if n, err := w.Close(); err != nil || n != 1 {
				t.Fatalf("close: %d, %v", n, err)
			}
			raw, _ := os.ReadFile(path)
			if strings.Contains(string(raw), token) || strings.Contains(string(raw), "dXNlcjpwYXNzd29yZDEyMzQ1Ng") {
				t.Errorf("the file holds a secret:\n%s", raw)
			}
			var got []Record
			f, _ := os.Open(path)
			defer f.Close()
			if err := Read(f, config.MaxFile, func(e Entry) error {
				r, err := e.Exchange()
				got = append(got, r)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d entries", len(got))
			}
			r := got[0]
			if string(r.Body) != tc.body || (r.BodyIncomplete == "") != tc.bodyWhole {
				t.Errorf("request body %q incomplete %q, want %q whole %v", r.Body, r.BodyIncomplete, tc.body, tc.bodyWhole)
			}
			if string(r.RespBody) != tc.resp || (r.RespIncomplete == "") != tc.respWhole {
				t.Errorf("response body %q incomplete %q, want %q whole %v", r.RespBody, r.RespIncomplete, tc.resp, tc.respWhole)
			}
			if tc.auth != "" && r.Header.Get("Authorization") != tc.auth {
				t.Errorf("Authorization %q, want %q", r.Header.Get("Authorization"), tc.auth)
			}
		})
	}
}

// TestReadBounded: a stream past the bound is refused, whatever its
// source (a pipe has no size to check first).
func TestReadBounded(t *testing.T) {
	in := `{"log":{"entries":[` + strings.Repeat(`{"request":{"method":"GET","url":"http://a/"},"response":{"status":200}},`, 100) + `{}]}}`
	n := 0
	err := Read(strings.NewReader(in), 512, func(Entry) error { n++; return nil })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if err := Read(strings.NewReader(in), config.MaxFile, func(Entry) error { return nil }); err != nil {
		t.Fatalf("within the bound: %v", err)
	}
}

// TestRedactedMarks names what recorders write for a hidden value.
func TestRedactedMarks(t *testing.T) {
	for v, want := range map[string]bool{
		"<redacted>": true, "REDACTED": true, "[REDACTED]": true, "***": true, "******": true, "[filtered]": true,
		"<token>": false, "<credential>": false, "Bearer <redacted>": false, "**": false, "abc": false, "": false,
	} {
		if got := Redacted(v); got != want {
			t.Errorf("Redacted(%q) = %v, want %v", v, got, want)
		}
	}
}
