package steps

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
	"github.com/plantcheck/plantcheck/internal/shell"
)

// TestCurlReproduces runs each reproduction command through sh, with the
// token in PLANTCHECK_TOKEN, against a loopback server that records what it
// receives, and compares that with the exchange.
func TestCurlReproduces(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed: apt-get install curl")
	}
	const token = "s3cret-canary-token"
	type got struct {
		method, path, query, auth, contentType, authToken, cookie string
		hasAuth                                                   bool
		body                                                      []byte
	}
	seen := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, hasAuth := r.Header["Authorization"]
		seen <- got{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("X-Auth-Token"), r.Header.Get("Cookie"), hasAuth, b}
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer srv.Close()

	tests := []struct {
		name      string
		authShell string
		wantAuth  string // "" with wantNoAuth: no header at all
		ct        string
		body      string
		tokenIn   tokenPlace // where the token goes instead, if anywhere
	}{
		{"the user's token", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json", `{"id":1,"name":"Fern"}`, ""},
		{"another scheme with the token", "Basic " + shell.TokenVar, "Basic " + token, "application/json", `{"id":1,"name":"Fern"}`, ""},
		{"an empty credential", "Bearer ", "Bearer", "application/json", `{"id":1,"name":"Fern"}`, ""},
		{"a foreign token", "Bearer 0123abcd", "Bearer 0123abcd", "application/json", `{"id":1,"name":"Fern"}`, ""},
		{"no Authorization", "", "", "application/json", `{"id":1,"name":"Fern"}`, ""},
		{"text/plain", "Bearer " + shell.TokenVar, "Bearer " + token, "text/plain", `{"id":1,"name":"Fern"}`, ""},
		{"no media type", "Bearer " + shell.TokenVar, "Bearer " + token, "", `{"id":1,"name":"Fern"}`, ""},
		{"quotes, percent and backslash", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json", `{"id":1,"name":"O'Brien's 100% \"fern\" \\ $HOME"}`, ""},
		{"non-ASCII", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json; charset=utf-8", `{"id":1,"name":"Monstera 🌿 日本 مرحبا"}`, ""},
		{"invalid UTF-8 and control bytes", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json", "{\"id\":1,\"name\":\"F\xff\x00\x01\r'ern\"}", ""},
		{"an empty body", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json", "", ""},
		{"a long body", "Bearer " + shell.TokenVar, "Bearer " + token, "application/json", `{"id":1,"name":"` + strings.Repeat("x", 10000) + `"}`, ""},
		{"the token in the query", "", "", "application/json", `{"id":1,"name":"Fern"}`, tokenInQuery},
		{"the token in the body", "", "", "application/json", `{"id":1,"name":"Fern","access_token":"` + token + `"}`, tokenInBody},
		{"the token in another header", "", "", "application/json", `{"id":1,"name":"Fern"}`, tokenInHeader},
		{"the token in a cookie", "", "", "application/json", `{"id":1,"name":"Fern"}`, tokenInCookie},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The header as sendRequest builds it.
			h := http.Header{"Accept": {"application/json"}, "User-Agent": {"plantcheck"}}
			if tt.authShell != "" {
				h.Set("Authorization", strings.ReplaceAll(tt.authShell, shell.TokenVar, token))
			}
			if tt.ct != "" {
				h.Set("Content-Type", tt.ct)
			}
			x := &Sent{Exchange: exchange.Exchange{Method: http.MethodPost, URL: srv.URL + "/api/v1/plants", Body: []byte(tt.body), Header: h}}
			if tt.authShell != "" {
				x.Auth = &exchange.Credential{Desc: strings.ReplaceAll(tt.authShell, shell.TokenVar, evidence.TokenMark), Shell: tt.authShell}
			}
			wantQuery := ""
			if tt.tokenIn != "" {
				name := "x-auth-token"
				if tt.tokenIn == tokenInCookie {
					name = "access_token"
				}
				x.Token = token
				if header, prefix, ok := tokenHeader(tt.tokenIn, name); ok {
					h.Set(header, prefix+token)
				}
			}
			if tt.tokenIn == tokenInQuery {
				x.URL += "?access_token=" + evidence.TokenMark
				wantQuery = "access_token=" + token
			}
			cmd := x.Curl()
			if strings.Contains(cmd, token) {
				t.Fatalf("the command holds the token: %s", cmd)
			}
			if line := x.RequestLine(); strings.Contains(line, token) {
				t.Fatalf("the request line holds the token: %s", line)
			}
			sh := exec.Command("sh", "-c", cmd)
			sh.Env = append(os.Environ(), "PLANTCHECK_TOKEN="+token)
			if out, err := sh.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s\ncommand:\n%s", err, out, cmd)
			}
			g := <-seen
			if g.method != http.MethodPost || g.path != "/api/v1/plants" || g.query != wantQuery {
				t.Errorf("request line = %s %s?%s, want the query %q", g.method, g.path, g.query, wantQuery)
			}
			if g.hasAuth != (tt.authShell != "") || strings.TrimSpace(g.auth) != tt.wantAuth {
				t.Errorf("Authorization = %q (present %v), want %q", g.auth, g.hasAuth, tt.wantAuth)
			}
			if want := map[bool]string{true: token}[tt.tokenIn == tokenInHeader]; g.authToken != want {
				t.Errorf("X-Auth-Token = %q, want %q", g.authToken, want)
			}
			if want := map[bool]string{true: "access_token=" + token}[tt.tokenIn == tokenInCookie]; g.cookie != want {
				t.Errorf("Cookie = %q, want %q", g.cookie, want)
			}
			if g.contentType != tt.ct {
				t.Errorf("Content-Type = %q, want %q", g.contentType, tt.ct)
			}
			if !bytes.Equal(g.body, []byte(tt.body)) {
				t.Errorf("body = %q, want %q\ncommand:\n%s", g.body, tt.body, cmd)
			}
		})
	}
}

// TestTokenHeader: each place in a header gives its header and what goes
// before the token; the others give none.
func TestTokenHeader(t *testing.T) {
	cases := []struct {
		place         tokenPlace
		name          string
		header, value string
		ok            bool
	}{
		{tokenInHeader, "x-auth-token", "X-Auth-Token", "", true},
		{tokenInBearer, "x-authorization", "X-Authorization", "Bearer ", true},
		{tokenInCookie, "access_token", "Cookie", "access_token=", true},
		{tokenInQuery, "access_token", "", "", false},
		{tokenInBody, "access_token", "", "", false},
		{"", "", "", "", false},
	}
	for _, tc := range cases {
		header, prefix, ok := tokenHeader(tc.place, tc.name)
		if header != tc.header || prefix != tc.value || ok != tc.ok {
			t.Errorf("tokenHeader(%q, %q) = %q, %q, %v; want %q, %q, %v", tc.place, tc.name, header, prefix, ok, tc.header, tc.value, tc.ok)
		}
	}
}
