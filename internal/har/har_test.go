package har

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// sizeProbes are the suite's size scenarios as a run records them: a
// name of 1,040,000 characters, one of "森" x 70,000, echoed.
func sizeProbes() []Record {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	var out []Record
	for _, name := range []string{strings.Repeat("Monstera deliciosa ", 1040000/19+1)[:1040000], strings.Repeat("森", 70000)} {
		body := []byte(`{"name":"` + name + `","species":"Monstera deliciosa"}`)
		out = append(out, Record{Started: time.Unix(1700000000, 0), Exchange: exchange.Exchange{
			Method: http.MethodPost, URL: "http://127.0.0.1:1/plants", Duration: time.Millisecond,
			Header: http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}},
			Body:   body, BodyTotal: int64(len(body)),
			Status: 201, RespHeader: http.Header{"Content-Type": {"application/json"}},
			RespBody: append([]byte(`{"id":7,`), body[1:]...), RespTotal: int64(len(body) + 7),
		}})
	}
	return out
}

// writeProbes writes the size probes' entries to path, secrets hidden, as
// run does.
func writeProbes(tb testing.TB, path string) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	known := evidence.NewSet(token)
	w, err := Create(path, "plantcheck", "bench")
	if err != nil {
		tb.Fatal(err)
	}
	for _, x := range sizeProbes() {
		w.Add(NewEntry(x, NewHider(token, known.Redactor(x.Secrets(true))), MaxBody))
	}
	if _, err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkHAR writes the size probes' entries as run does, and reads them
// back as judge does.
func BenchmarkHAR(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.har")
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			writeProbes(b, path)
		}
	})
	writeProbes(b, path)
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			if err := Read(bytes.NewReader(raw), config.MaxFile, func(e Entry) error {
				_, err := e.Exchange()
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// bodyDefined is body as first written, a copy of the body at each step:
// the oracle of the one that copies it once.
func bodyDefined(h *Hider, b []byte, total, max int64, incomplete string) (size int64, text *string, encoding, comment string) {
	total = bodySize(b, total, false)
	if limit := max + int64(h.margin()); int64(len(b)) > limit {
		b = b[:limit]
	}
	hb := []byte(h.String(string(b)))
	size = total + int64(len(hb)-len(b))
	hb = hb[:min(int64(len(hb)), max)]
	if int64(len(hb)) < size {
		comment = fmt.Sprintf("%s: %d of %d bytes kept", CutComment, len(hb), size)
	} else if incomplete != "" {
		comment = CutComment + ": not read to its end"
	}
	if t := string(hb); utf8.Valid(hb) {
		return size, &t, "", comment
	}
	t := base64.StdEncoding.EncodeToString(hb)
	return size, &t, "base64", comment
}

// TestBodyAsDefined holds body to bodyDefined on hostile bodies: secrets
// and the token across the cut and in every case, bytes that are not
// UTF-8, a rune cut in two, bodies past the bound and short of their size.
func TestBodyAsDefined(t *testing.T) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	h := NewHider(token, evidence.New(token, "other-secret-0123456789"))
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{token, strings.ToUpper(token), "other-secret-0123456789", "OTHER-SECRET", "森", "é", "\xff", "\xe6\xa3", "Monstera deliciosa ", `\u0071`, "<redacted>", "x"}
	for k := range 3000 {
		var b strings.Builder
		for n := rng.IntN(400); b.Len() < n; {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if k%100 == 0 {
			b.WriteString(strings.Repeat("Monstera deliciosa ", 60000))
			b.WriteString(token)
		}
		in := []byte(b.String())
		max := int64(rng.IntN(len(in) + 8))
		if k%3 == 0 {
			max = MaxBody
		}
		total := []int64{0, int64(len(in)), int64(len(in)) + 100}[rng.IntN(3)]
		incomplete := []string{"", "not read to its end"}[rng.IntN(2)]
		size, text, enc, comment := body(h, in, total, max, incomplete)
		wsize, wtext, wenc, wcomment := bodyDefined(h, in, total, max, incomplete)
		if size != wsize || *text != *wtext || enc != wenc || comment != wcomment {
			t.Fatalf("body(%q, %d, %d, %q) = %d, %q, %q, %q; want %d, %q, %q, %q", in, total, max, incomplete,
				size, *text, enc, comment, wsize, *wtext, wenc, wcomment)
		}
	}
}

// TestEntryAsDefined: the entries of the size probes and of hostile bodies
// encode to the bytes they did when body copied at each step, and read
// back to the bodies written.
func TestEntryAsDefined(t *testing.T) {
	const token = "q3Zk-x9TbLm_Vw2hRf7sPaYdNc"
	records := sizeProbes()
	for _, b := range []string{"\xff\xfe" + token, "森林" + strings.Repeat("\xe6", 3) + strings.ToUpper(token), `{"a":"\u0071` + token[1:] + `"}`} {
		x := records[0]
		x.Body, x.BodyTotal, x.RespBody, x.RespTotal, x.RespIncomplete = []byte(b), 0, []byte(b+b), int64(len(b)*3), "not read to its end"
		records = append(records, x)
	}
	for i, x := range records {
		h := NewHider(token, evidence.NewSet(token).Redactor(x.Secrets(true)))
		for _, max := range []int64{MaxBody, 100, 7} {
			got := NewEntry(x, h, max)
			want := NewEntry(x, h, max)
			p := want.Request.PostData
			want.Request.BodySize, p.Text, p.Encoding, p.Comment = bodyDefined(h, x.Body, x.BodyTotal, max, x.BodyIncomplete)
			c := &want.Response.Content
			c.Size, c.Text, c.Encoding, c.Comment = bodyDefined(h, x.RespBody, x.RespTotal, max, x.RespIncomplete)
			want.Response.BodySize = c.Size
			gb, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			wb, _ := json.Marshal(want)
			if !bytes.Equal(gb, wb) {
				t.Fatalf("record %d, max %d: the entry encodes to %.300q..., want %.300q...", i, max, gb, wb)
			}
			r, err := got.Exchange()
			if err != nil {
				t.Fatal(err)
			}
			if wt, _ := decode(*p.Text, p.Encoding); !bytes.Equal(r.Body, wt) {
				t.Errorf("record %d, max %d: the request body reads back as %.100q, want %.100q", i, max, r.Body, wt)
			}
		}
	}
}
