package exchange

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// secretsOfExchange are the secrets of an exchange, as both drivers find
// them: its headers', its query's, its body's.
func secretsOfExchange(x *Exchange) []string {
	var into []string
	into = HeaderSecrets(x.Header, into)
	if _, q, ok := strings.Cut(x.URL, "?"); ok {
		into = QuerySecrets(q, into)
	}
	return BodySecrets(x.Body, into)
}

// TestRenderingHidesEveryCredential: whatever form a credential takes in
// a request (a header by name, a Basic pair, a cookie, a query parameter,
// a body member at any depth, a short token), none of it reaches the
// request line, the response line or the reproduction, and each rendering
// still says what it hides.
func TestRenderingHidesEveryCredential(t *testing.T) {
	plant := `{"id":1,"name":"Fern"}`
	for _, tc := range []struct {
		name    string
		x       Exchange
		secrets []string // what must not show
		want    []string // what must show, in the line or the command
	}{
		{"bearer", Exchange{Header: http.Header{"Authorization": {"Bearer tok-bearer-0123456789"}}, Body: []byte(plant)},
			[]string{"tok-bearer-0123456789"}, []string{"Authorization: Bearer <credential>", `-H "Authorization: Bearer ${PLANTCHECK_TOKEN}"`}},
		{"basic", Exchange{Header: http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("gardener:pass-basic-98765"))}}, Body: []byte(plant),
			RespBody: []byte(`{"user":"gardener","pass":"pass-basic-98765"}`)},
			[]string{"pass-basic-98765", "gardener"}, []string{"Authorization: Basic <credential>"}},
		{"an API key header", Exchange{Header: http.Header{"X-Api-Key": {"key-header-13579"}}, Body: []byte(plant)},
			[]string{"key-header-13579"}, []string{"X-Api-Key: <redacted>", `-H "X-Api-Key: ${PLANTCHECK_HEADER_X_API_KEY}"`}},
		{"a credential header whose name a shell reads as code", Exchange{Header: http.Header{"X-$(Reboot)-Token": {"key-odd-name-24680"}}, Body: []byte(plant)},
			[]string{"key-odd-name-24680"}, []string{`-H 'X-$(Reboot)-Token: '"${PLANTCHECK_HEADER_`}},
		{"a cookie", Exchange{Header: http.Header{"Cookie": {"session=cookie-val-24680"}}, Body: []byte(plant)},
			[]string{"cookie-val-24680"}, []string{"Cookie: <redacted>", `-H "Cookie: ${PLANTCHECK_COOKIE}"`}},
		{"an extra header the user named secret", Exchange{Header: http.Header{"X-Tenant": {"tenant-secret-11223"}}, SecretHeaders: []string{"x-tenant"}, Body: []byte(plant)},
			[]string{"tenant-secret-11223"}, []string{"X-Tenant: <redacted>", `-H "X-Tenant: ${PLANTCHECK_HEADER_X_TENANT}"`}},
		{"a query parameter", Exchange{URL: "http://127.0.0.1:1/plants?api_key=query-key-55667", Body: []byte(plant)},
			[]string{"query-key-55667"}, []string{"api_key=<redacted>"}},
		{"nested body members", Exchange{Body: []byte(`{"id":"x","name":"n","password":"pw-nested-1","auth":{"token":"tok-nested-2"},"tokens":["tok-nested-3"],"credentials":{"api_key":{"value":"key-nested-4"}}}`),
			RespBody: []byte(`{"echo":"pw-nested-1 tok-nested-2 tok-nested-3 key-nested-4"}`)},
			[]string{"pw-nested-1", "tok-nested-2", "tok-nested-3", "key-nested-4"}, []string{`\"password\":\"<redacted>\"`}},
		{"a 2-character token", Exchange{Header: http.Header{"Authorization": {"Bearer ct"}}, Body: []byte(`{"id":1,"name":"ct"}`),
			RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(`{"name":"ct"}`)},
			[]string{`"ct"`}, []string{"Authorization: Bearer <credential>", `{\"name\":\"<redacted>\"}`, "application/json", "no Accept"}},
		{"a 2-character token, the answer redacted already", Exchange{Header: http.Header{"Authorization": {"Bearer ct"}}, Body: []byte(plant),
			RespBody: []byte(`{"name":"<redacted>","error":"<token> <credential>"}`)},
			[]string{`"ct"`}, []string{`{\"name\":\"<redacted>\",\"error\":\"<token> <credential>\"}`}},
		{"the user's token in the query, the body and a header", Exchange{URL: "http://127.0.0.1:1/plants?access_token=" + evidence.TokenMark, Token: "user-token-99887",
			Header: http.Header{"X-Auth-Token": {"user-token-99887"}}, Body: []byte(`{"id":1,"name":"n","access_token":"user-token-99887"}`)},
			[]string{"user-token-99887"}, []string{"X-Auth-Token: <token>", `'X-Auth-Token: '"${PLANTCHECK_TOKEN}"`, `/plants?access_token='"${PLANTCHECK_TOKEN}"`, `"access_token":"'"${PLANTCHECK_TOKEN}"'"}'`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x
			x.Method = http.MethodPost
			if x.URL == "" {
				x.URL = "http://127.0.0.1:1/plants"
			}
			x.Status, x.Duration = 200, time.Millisecond
			secrets := secretsOfExchange(&x)
			if x.Token != "" {
				secrets = append(secrets, x.Token)
			}
			red := evidence.New(secrets...)
			out := x.RequestLine(red) + "\n" + x.ResponseLine(red) + "\n" + x.Curl(red)
			req, resp := x.Message(red)
			for _, s := range tc.secrets {
				if strings.Contains(req+resp, s) {
					t.Errorf("the messages hold %q:\n%s\n%s", s, req, resp)
				}
			}
			for _, s := range tc.secrets {
				if strings.Contains(out, s) {
					t.Errorf("the evidence holds %q:\n%s", s, out)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the evidence lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "<redac<") || strings.Contains(out, "<<") {
				t.Errorf("a marker was redacted again:\n%s", out)
			}
		})
	}
}

// TestMessage: the exchange as HTTP messages, for the living
// documentation: the issued token as <token>, the target as given, every
// header a client set, each body on a line of its own, escaped and bounded,
// so that a body can neither forge a header nor end the block.
func TestMessage(t *testing.T) {
	const token = "docs-token-0123456789"
	long := strings.Repeat("n", 2*ExcerptBytes)
	tests := []struct {
		name          string
		x             Exchange
		req, resp     string // what the messages are, whole
		reqHas, never string
	}{
		{
			name: "a plant created",
			x: Exchange{Method: "POST", URL: "http://127.0.0.1:1/plants", Target: "{base_url}/plants",
				Header: http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}, Auth: &Credential{Desc: "Bearer <token>"},
				Body: []byte(`{"id":7,"name":"Fern"}`), Status: 200, RespHeader: http.Header{"Content-Type": {"application/json"}, "Date": {"now"}}, RespBody: []byte("{\"name\":\"Fern\"}\n")},
			req:  "POST {base_url}/plants HTTP/1.1\nAuthorization: Bearer <token>\nContent-Type: application/json\n\n{\"id\":7,\"name\":\"Fern\"}\n",
			resp: "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\"name\":\"Fern\"}\n",
		},
		{
			name: "a body that would forge a header and end the block",
			x: Exchange{Method: "POST", URL: "http://127.0.0.1:1/plants", Header: http.Header{"Content-Type": {"text/plain"}},
				Body: []byte("x\nX-Forged: 1\n```\x1b[2J"), Status: 400, RespBody: []byte("no\r\nX-Forged: 2")},
			reqHas: `x\nX-Forged: 1\n` + "```" + `\x1b[2J`, never: "\nX-Forged",
		},
		{
			name:   "the token elsewhere, a long body",
			x:      Exchange{Method: "POST", URL: "http://127.0.0.1:1/plants?access_token=" + token, Token: token, Header: http.Header{"X-Api-Key": {"k-secret-1234"}}, SecretHeaders: []string{"X-Api-Key"}, Body: []byte(long), Status: 413},
			reqHas: "POST http://127.0.0.1:1/plants?access_token=<token> HTTP/1.1\nX-Api-Key: <redacted>\n", never: "k-secret-1234",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			red := evidence.New(token, "k-secret-1234")
			req, resp := tt.x.Message(red)
			if tt.req != "" && req != tt.req {
				t.Errorf("request\n%s\nwant\n%s", req, tt.req)
			}
			if tt.resp != "" && resp != tt.resp {
				t.Errorf("response\n%s\nwant\n%s", resp, tt.resp)
			}
			if !strings.Contains(req, tt.reqHas) {
				t.Errorf("request\n%s\nlacks %q", req, tt.reqHas)
			}
			if tt.never != "" && strings.Contains(req+resp, tt.never) {
				t.Errorf("the messages hold %q:\n%s\n%s", tt.never, req, resp)
			}
			if strings.Contains(req+resp, token) {
				t.Errorf("the messages hold the token:\n%s\n%s", req, resp)
			}
			for _, line := range strings.Split(req+resp, "\n") {
				if len(line) > ExcerptBytes+64 {
					t.Errorf("a line of %d bytes: not bounded", len(line))
				}
			}
		})
	}
}

// TestNotReproduced: a body not kept whole, or past the bound, is quoted
// with its size and never sent again.
func TestNotReproduced(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    Exchange
	}{
		{"cut", Exchange{Body: []byte(`{"id":1`), BodyTotal: 100}},
		{"broken off", Exchange{Body: []byte(`{"id":1`), BodyIncomplete: "request body not read to its end"}},
		{"too long", Exchange{Body: []byte(counting(ReproduceBytes + 1))}},
		{"too long, in runs too short", Exchange{Body: []byte(strings.Repeat(strings.Repeat("x", 200)+",", 100))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.x.Curl(nil); got != "" {
				t.Errorf("Curl = %q, want none", got)
			}
		})
	}
	x := Exchange{Method: "POST", URL: "http://h/p", Body: []byte(strings.Repeat("x", 600)), BodyTotal: 5000}
	if line := x.RequestLine(nil); !strings.Contains(line, "(5000 bytes in all)") {
		t.Errorf("RequestLine = %q, want the body's size", line)
	}
}

// TestLongReproducedByRuns: a body long for runs of one letter (a long
// name), or a header value that is one (a padding), is reproduced by
// commands that make the runs; the shell's output is the very bytes sent.
func TestLongReproducedByRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	long := strings.Repeat("x", 1040000)
	tests := []struct {
		name   string
		x      Exchange
		header string // a header value the command must send ("": none)
	}{
		{"a long name", Exchange{Body: []byte(`{"id":1,"name":"` + long + `"}`)}, ""},
		{"two long members", Exchange{Body: []byte(`{"id":1,"name":"` + strings.Repeat("N", 20000) + `","tag":"` + strings.Repeat("7", 300) + `"}`)}, ""},
		{"runs of a quote and of a text", Exchange{Body: []byte(strings.Repeat("'", 20000) + "$(x)" + strings.Repeat("Monstera deliciosa ", 1000) + "Mon")}, ""},
		{"a long header", Exchange{Body: []byte(`{"id":1,"name":"a"}`), Header: http.Header{"X-Plantcheck-Padding": {strings.Repeat("x", 6144)}}}, strings.Repeat("x", 6144)},
		{"a deep member, under the bound", Exchange{Body: []byte(`{"id":1,"name":"a","nested":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.x.Method, tc.x.URL = "POST", "http://127.0.0.1:1/plants"
			cmd := tc.x.Curl(nil)
			if cmd == "" || len(cmd) > ReproduceBytes {
				t.Fatalf("Curl = %d bytes, want a command under %d", len(cmd), ReproduceBytes)
			}
			if len(tc.x.Body) >= RunsFrom && len(cmd) > 1<<10 {
				t.Errorf("Curl = %d bytes for a body of runs: the runs are written out\n%s", len(cmd), cmd)
			}
			// The command with curl replaced by a writer of what it
			// would send: the body on stdin, each -H argument.
			script := `curl() { d=; for a in "$@"; do
  if [ -n "$d" ]; then if [ "$a" = @- ]; then cat; else printf '%s' "$a"; fi; d=; fi
  case $a in --data-binary) d=1;; X-*) printf '%s' "$a" >&2;; esac
done; }
` + cmd
			var out, hdr bytes.Buffer
			sh := exec.Command("sh", "-c", script)
			sh.Stdout, sh.Stderr = &out, &hdr
			if err := sh.Run(); err != nil {
				t.Fatalf("sh: %v\n%s", err, cmd)
			}
			if !bytes.Equal(out.Bytes(), tc.x.Body) {
				t.Errorf("the command sends %d bytes, not the %d of the body", out.Len(), len(tc.x.Body))
			}
			if tc.header != "" && hdr.String() != "X-Plantcheck-Padding: "+tc.header {
				t.Errorf("the command sends the header as %d bytes %.40q, want %d", hdr.Len(), hdr.String(), len(tc.header)+22)
			}
		})
	}
}

// counting is n bytes of text that repeats no short text: the numbers
// from 0, one after another.
func counting(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()[:n]
}

// TestRecordedTokenMarkIsReproduced: a recording plantcheck wrote holds
// the user's token as its mark; judged again, without the token, the
// reproduction reads the token from $PLANTCHECK_TOKEN where the mark is,
// never sends the mark.
func TestRecordedTokenMarkIsReproduced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, url, want string
	}{
		{"in the query", "http://h/plants?api_key=" + evidence.TokenMark, `'http://h/plants?api_key='"${PLANTCHECK_TOKEN}"`},
		{"no mark", "http://h/plants?x=1", `'http://h/plants?x=1'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := Exchange{Method: "POST", URL: tc.url}
			got := x.Curl(evidence.New())
			if !strings.Contains(got, "curl -sS -i -X POST "+tc.want) || strings.Contains(got, evidence.TokenMark) {
				t.Errorf("Curl = %q, want the URL %s", got, tc.want)
			}
		})
	}
}
