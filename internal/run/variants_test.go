package run

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/steps"

	"github.com/plantcheck/plantcheck/internal/verdict"
)

// TestUnusualButConformantTargets is the other half of the mutation test:
// servers that keep the written contract in ways the reference does not
// (other JSON spellings, other framing, what the spec leaves open decided
// the other way) must pass every rule, SHOULD rules included. A failure here
// is the suite reading into the spec what it does not say.
func TestUnusualButConformantTargets(t *testing.T) {
	t.Parallel()
	// Long enough for every credential near it (a change past its 72nd
	// byte included), so that every scenario runs.
	const token = "variant-token-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123"
	variants := []struct {
		name string
		// store replaces the reference's store; nil keeps it.
		store reference.Store
		// wrap turns the reference's handler into the variant's.
		wrap func(ref http.Handler) http.Handler
		// prefix is a path the API is served under.
		prefix string
		// token replaces the run's token.
		token string
		// maxBody is the reference's body limit (0: its own).
		maxBody int64
		// again: the variant keeps state of its own that a second run
		// meets otherwise than the first (passesTwice). A variant that
		// only rewrites the reference's answers, or reads its requests
		// otherwise, keeps the reference's store, which the reference's
		// own second run holds the suite to: one run shows it.
		again bool
	}{
		{name: "the reference server as it is", again: true},
		{name: "escapes every non-ASCII character and slash", wrap: rewriteBody(escapeJSON)},
		{name: "pretty-prints with tabs and CRLF", wrap: rewriteBody(func(b []byte) []byte {
			var out bytes.Buffer
			json.Indent(&out, b, "", "\t")
			return append(append([]byte("\r\n "), bytes.ReplaceAll(out.Bytes(), []byte("\n"), []byte("\r\n"))...), "\r\n"...)
		})},
		{name: "writes the Error code with a zero fraction and an exponent", wrap: rewriteBody(func(b []byte) []byte {
			return regexp.MustCompile(`"error":(-?\d+)`).ReplaceAll(b, []byte(`"error":${1}.0e0`))
		})},
		{name: "reorders members and adds unknown ones", wrap: rewriteBody(reorderAndExtend)},
		{name: "spells the media type in capitals with a charset", wrap: rewriteHeader("Content-Type", "Application/JSON; Charset=UTF-8")},
		{name: "sends Content-Type once, with parameters", wrap: rewriteHeader("Content-Type", `application/json; charset=utf-8; profile="plants"`)},
		{name: "closes the connection after every answer", wrap: rewriteHeader("Connection", "close")},
		{name: "streams its answers in chunks", wrap: chunked},
		{name: "compresses its answers", wrap: gzipped},
		{name: "answers after 20 ms", wrap: func(ref http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(20 * time.Millisecond)
				ref.ServeHTTP(w, r)
			})
		}},
		{name: "accepts an id written with a zero fraction", wrap: func(ref http.Handler) http.Handler {
			zero := regexp.MustCompile(`("id"\s*:\s*-?\d+)\.0+([,}\s])`)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				body = zero.ReplaceAll(body, []byte("$1$2"))
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				ref.ServeHTTP(w, r)
			})
		}},
		// What a service answers to an Accept that admits no JSON is left
		// open (OPEN-ACCEPT-OTHER): the reference answers 200; these
		// answer as a framework's content negotiation does (Express's
		// req.accepts('json'), Spring's produces), each kept apart from
		// every Accept that admits JSON.
		{name: "answers an Accept that admits no JSON with 406 and text", wrap: unlessAcceptsJSON(http.StatusNotAcceptable, "text/plain; charset=utf-8", "Not Acceptable\n")},
		{name: "answers an Accept that admits no JSON with 406 and an HTML page", wrap: unlessAcceptsJSON(http.StatusNotAcceptable, "text/html", "<h1>406 Not Acceptable</h1>")},
		{name: "refuses an Accept that admits no JSON with 400 and an Error record", wrap: unlessAcceptsJSON(http.StatusBadRequest, "application/json", `{"error":406,"message":"this service answers application/json"}`)},
		{name: "accepts a reused id", store: forgetfulStore{}, again: true},
		{name: "is served under a path prefix", prefix: "/api/v1"},
		{name: "refuses a name it has stored", store: &uniqueNames{}, again: true},
		// A JWT-like token compared as the bytes it decodes to, as JWT
		// libraries compare signatures: its last character carries two
		// bits that decode to nothing, so "...w" and "...x" are one token.
		{name: "compares the bytes a base64url token decodes to", token: b64Token, wrap: decodedTokens(b64Token)},
		// Size limits are not shown: a refusal with 400 and an Error
		// record keeps the contract, whatever the size.
		{name: "refuses every body over 64 KiB with 400 and an Error record", maxBody: 64 << 10},
		{name: "refuses a header line over 4 KiB with 400 and an Error record", wrap: func(ref http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for name, vs := range r.Header {
					for _, v := range vs {
						if len(name)+2+len(v) > 4<<10 {
							w.Header().Set("Content-Type", "application/json")
							w.WriteHeader(http.StatusBadRequest)
							io.WriteString(w, `{"error":431,"message":"a header line is longer than 4 KiB"}`)
							return
						}
					}
				}
				ref.ServeHTTP(w, r)
			})
		}},
		{name: "refuses a body nested more than 100 levels deep with 400 and an Error record", wrap: func(ref http.Handler) http.Handler {
			// Ruby's JSON.parse stops at 100 levels (max_nesting).
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if mutants.Nesting(b) > 100 {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"error":400,"message":"nesting of 101 is too deep"}`)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
				ref.ServeHTTP(w, r)
			})
		}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			token := cmp.Or(v.token, token)
			ref, err := reference.New(reference.Config{Token: token, Store: v.store, MaxBodyBytes: v.maxBody})
			if err != nil {
				t.Fatal(err)
			}
			var h http.Handler = ref
			if v.wrap != nil {
				h = v.wrap(ref)
			}
			if v.prefix != "" {
				h = http.StripPrefix(v.prefix, h)
			}
			if v.again {
				passesTwice(t, h, v.prefix, token)
			} else {
				passes(t, h, v.prefix, token, 1)
			}
		})
	}
}

// passesTwice runs the whole suite, strict, twice against one instance of
// h (served under prefix), and fails t unless every scenario passes both
// times: a server that keeps what it stored must pass a second run as it
// passed the first.
func passesTwice(t *testing.T, h http.Handler, prefix, token string) {
	t.Helper()
	passes(t, h, prefix, token, 2)
}

// passes runs the whole suite, strict, runs times against one instance of
// h (served under prefix), and fails t unless every scenario passes each
// time.
func passes(t *testing.T, h http.Handler, prefix, token string, runs int) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for run := 1; run <= runs; run++ {
		var out bytes.Buffer
		rep, err := runWith(context.Background(), Config{BaseURL: srv.URL + prefix, Token: token, Strict: true}, Options{Output: &out})
		if err != nil {
			t.Fatalf("run %d: Run: %v", run, err)
		}
		// The second run may find the fixed ids of BODY-ID-RANGE
		// stored by the first: those scenarios are inconclusive.
		skipped := rep.Model().Counts.NotRun
		for _, sc := range rep.Scenarios {
			if run == 2 && sc.Outcome == steps.Skipped && strings.HasPrefix(sc.Note, "inconclusive") {
				skipped--
			}
		}
		if got := rep.ExitCode(); got != 0 || rep.Model().Counts.Failed+rep.Model().Counts.Errors+skipped != 0 {
			rep.WriteFailures(&out)
			var unjudged []string
			for _, v := range rep.Model().Rules {
				if v.Outcome != verdict.Pass {
					unjudged = append(unjudged, fmt.Sprintf("%s %s (%s)", v.ID, v.Outcome, v.NotJudgedBecause))
				}
			}
			t.Fatalf("run %d: exit code %d, counts %+v, want 0 and every scenario passed; rules not passed: %v\n%s", run, got, rep.Model().Counts, unjudged, out.String())
		}
	}
}

// TestSchemeCaseRefusedIsConformant: a service that takes only the scheme
// as the spec writes it, Bearer, and refuses bearer and BEARER with 400 and
// an Error record, keeps the letter of the spec: it fails AUTH-SCHEME-CASE,
// a SHOULD, and nothing else, so its run is exit 0, and 1 only with
// --strict.
func TestSchemeCaseRefusedIsConformant(t *testing.T) {
	t.Parallel()
	const token = "variant-token-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123"
	ref, err := reference.New(reference.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " "); scheme != "Bearer" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":401,"message":"Authorization must be Bearer <token>"}`)
			return
		}
		ref.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, strict := range []bool{false, true} {
		rep, err := runWith(context.Background(), Config{BaseURL: srv.URL, Token: token, Strict: strict}, Options{Output: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		for _, v := range rep.Model().Rules {
			if v.Outcome == verdict.Fail {
				failed = append(failed, string(v.ID))
			}
		}
		if !slices.Equal(failed, []string{"AUTH-SCHEME-CASE"}) {
			t.Errorf("strict %v: failed %v, want AUTH-SCHEME-CASE alone", strict, failed)
		}
		if got, want := rep.ExitCode(), map[bool]int{false: 0, true: 1}[strict]; got != want {
			t.Errorf("strict %v: exit code %d, want %d", strict, got, want)
		}
	}
}

// unlessAcceptsJSON answers status, contentType and body to a request
// whose Accept names no range that holds application/json (the type, its
// range or */*, in any letter case, with a weight above 0); the reference
// answers the others.
func unlessAcceptsJSON(status int, contentType, body string) func(http.Handler) http.Handler {
	return func(ref http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			admits := len(r.Header.Values("Accept")) == 0
			for _, v := range r.Header.Values("Accept") {
				for _, rng := range strings.Split(v, ",") {
					mt, params, _ := strings.Cut(strings.ToLower(rng), ";")
					switch strings.TrimSpace(mt) {
					case "application/json", "application/*", "*/*":
						admits = admits || !regexp.MustCompile(`q\s*=\s*0(\.0*)?$`).MatchString(strings.TrimSpace(params))
					}
				}
			}
			if admits {
				ref.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			io.WriteString(w, body)
		})
	}
}

// uniqueNames refuses a second plant with a name it has stored, as a store
// with a unique key on the name would ("uniqueness of id or name: not
// shown").
type uniqueNames struct {
	mu    sync.Mutex
	names map[string]bool
}

func (u *uniqueNames) Add(_ context.Context, p reference.Plant) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.names == nil {
		u.names = map[string]bool{}
	}
	if u.names[p.Name] {
		return reference.ErrDuplicateID // answered 400 with an Error record
	}
	u.names[p.Name] = true
	return nil
}

// b64Token is 75 base64url characters (56 bytes and two bits that decode
// to nothing), long enough for every credential near it.
const b64Token = "eyJhbGciOiJIUzI1NiJ9eyJzdWIiOiJwbGFudGNoZWNrIn0_7HyYfzAZdorl1OBdejiAlme05Dw"

// decodedTokens lets a credential through to the reference as the token
// when it decodes, as lenient base64url (Go's default), to the token's bytes.
func decodedTokens(token string) func(http.Handler) http.Handler {
	want, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		panic(err)
	}
	return func(ref http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if cred, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				if got, err := base64.RawURLEncoding.DecodeString(cred); err == nil && bytes.Equal(got, want) {
					r.Header.Set("Authorization", "Bearer "+token)
				}
			}
			ref.ServeHTTP(w, r)
		})
	}
}

// forgetfulStore keeps nothing, so that every id is new to it.
type forgetfulStore struct{}

func (forgetfulStore) Add(context.Context, reference.Plant) error { return nil }

// rewriteBody serves the reference's answer with its body rewritten.
func rewriteBody(f func([]byte) []byte) func(http.Handler) http.Handler {
	return func(ref http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			body := f(rec.Body.Bytes())
			copyHeader(w.Header(), rec.Header())
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			w.Write(body)
		})
	}
}

// rewriteHeader serves the reference's answer with one header set.
func rewriteHeader(name, value string) func(http.Handler) http.Handler {
	return func(ref http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			ref.ServeHTTP(rec, r)
			copyHeader(w.Header(), rec.Header())
			w.Header().Set(name, value)
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
		})
	}
}

// chunked sends the answer in two flushed pieces, without a length.
func chunked(ref http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		copyHeader(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		b := rec.Body.Bytes()
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		w.Write(b[len(b)/2:])
	})
}

// gzipped compresses the answer when the client accepts gzip, as Go's
// client says it does.
func gzipped(ref http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		copyHeader(w.Header(), rec.Header())
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		w.Header().Del("Content-Length")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(rec.Code)
		zw := gzip.NewWriter(w)
		zw.Write(rec.Body.Bytes())
		zw.Close()
	})
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = slices.Clone(vs)
	}
}

// escapeJSON writes every non-ASCII character of a JSON text as a \u escape
// (a surrogate pair beyond the BMP) and every slash as \/: the same JSON.
func escapeJSON(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r == '/':
			out.WriteString(`\/`)
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&out, `\u%04X`, r)
		}
	}
	return out.Bytes()
}

// reorderAndExtend writes an object's members in reverse order, after an
// unknown member; a body that is not an object is left alone.
func reorderAndExtend(b []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var obj map[string]json.RawMessage
	if d.Decode(&obj) != nil || obj == nil {
		return b
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range obj {
			if !yield(k) {
				return
			}
		}
	})
	slices.Reverse(keys)
	var out bytes.Buffer
	out.WriteString(`{"x-served-by":{"node":7,"tags":["a",null]}`)
	for _, k := range keys {
		name, _ := json.Marshal(k)
		fmt.Fprintf(&out, ",%s:%s", name, obj[k])
	}
	out.WriteString("}")
	return out.Bytes()
}
