package har

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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
	if int64(len(hb)) > max {
		hb = hb[:max]
	}
	switch {
	case int64(len(hb)) < size:
		comment = fmt.Sprintf("%s: %d of %d bytes kept", CutComment, len(hb), size)
	case incomplete != "":
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
