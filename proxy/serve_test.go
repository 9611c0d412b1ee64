package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/shell"
)

// syncBuffer is a buffer Serve writes its progress into while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe: progress lines while it runs; on stop, exchanges in flight
// past the grace are cut and counted, and Serve says so; OnExchange sees
// every exchange.
func TestServe(t *testing.T) {
	base, tok := referenceUpstream(t)
	endless := upstreamOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for r.Context().Err() == nil {
			w.Write([]byte(" "))
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}))
	var mu sync.Mutex
	var seen []Exchange
	h, err := New(Config{Upstream: mustURL(base), OnExchange: func(x Exchange) {
		mu.Lock()
		seen = append(seen, x)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var progress syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, 300*time.Millisecond, 20*time.Millisecond, &progress) }()
	url := "http://" + ln.Addr().String()

	sent{body: `{"id":1,"name":"Fern"}`, auth: "-", ct: "application/json"}.send(t, url)
	post(t, url, "/plants", `{"id":2,"name":"Fern"}`, "Authorization", "Bearer "+tok, "Content-Type", "application/json")
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(progress.String(), "2 exchanges (2 judged)") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := progress.String(); !regexp.MustCompile(`(?m)^plantcheck proxy: 2 exchanges \(2 judged\), 0 server-side violations, 1 client-side violation, 0 answered by the proxy$`).MatchString(got) {
		t.Errorf("progress = %q", got)
	}

	// An exchange that never ends, through a second proxy of the same
	// Handler's kind: its upstream streams for ever.
	h2, _ := New(Config{Upstream: mustURL(endless)})
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan error, 1)
	go func() { done2 <- Serve(ctx2, ln2, h2, 200*time.Millisecond, 0, nil) }()
	resp, err := client.Post("http://"+ln2.Addr().String()+"/plants", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, resp.Body)
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	cancel2()
	if err := <-done2; !errors.Is(err, ErrCut) {
		t.Errorf("Serve = %v, want ErrCut", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopping took %s, want about the grace", d)
	}
	if v := h2.Verdict(Options{}); v.Exchanges != 1 || v.Judged != 0 {
		t.Errorf("the cut exchange: %d exchanges, %d judged; want 1 counted, not judged", v.Exchanges, v.Judged)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || !seen[0].Judged || seen[0].Status != 400 && seen[1].Status != 400 {
		t.Errorf("OnExchange saw %+v, want two judged exchanges", seen)
	}
}

func TestCredentials(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "X-Api-Key": true, "X-Auth-Token": true,
		"X-Client-Secret": true, "Api-KEY": true, "X-Session-Id": true,
		"Content-Type": false, "Accept": false, "User-Agent": false, "Keep-Alive": false, "X-Request-Id": false,
	} {
		if got := isCredential(name); got != want {
			t.Errorf("isCredential(%q) = %v, want %v", name, got, want)
		}
	}
	for v, want := range map[string][2]string{
		"Bearer s3cret":  {"Bearer <credential>", "Bearer ${PLANTCHECK_TOKEN}"},
		"bearer s3cret":  {"bearer <credential>", "bearer ${PLANTCHECK_TOKEN}"},
		"Basic dXNlcg==": {"Basic <credential>", "Basic ${PLANTCHECK_TOKEN}"},
		"Bearer ":        {"Bearer (empty credential)", "Bearer "},
		"Bearer":         {"Bearer (no credential)", "Bearer"},
		"s3cret":         {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
		"Bearers3cret":   {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
		"s3cret more":    {"<credential> (no scheme)", "${PLANTCHECK_TOKEN}"},
	} {
		if desc, shell := authShape(v); desc != want[0] || shell != want[1] {
			t.Errorf("authShape(%q) = %q, %q; want %q, %q", v, desc, shell, want[0], want[1])
		}
	}
	if got, want := shell.HeaderVar("X-Api-Key"), "PLANTCHECK_HEADER_X_API_KEY"; got != want {
		t.Errorf("headerVar = %q, want %q (as plantcheck run names it)", got, want)
	}
	secrets := secretsOf(http.Header{"Authorization": {"Bearer tok-1"}, "Cookie": {"a=c1; b=c2"}, "Accept": {"x"}}, nil)
	for _, want := range []string{"tok-1", "a=c1; b=c2", "c1", "c2"} {
		if !strings.Contains(strings.Join(secrets, "\n"), want) {
			t.Errorf("secrets %q lack %q", secrets, want)
		}
	}
	for _, s := range secrets {
		if s == "Bearer" || s == "x" {
			t.Errorf("secrets %q hold %q, which is no secret", secrets, s)
		}
	}
	// A scheme's name alone carries no credential: hiding it would garble
	// every request line that names the scheme.
	for _, v := range []string{"Bearer", "bearer ", " Basic"} {
		if got := secretsOf(http.Header{"Authorization": {v}}, nil); len(got) != 0 {
			t.Errorf("secretsOf(Authorization: %q) = %q, want none", v, got)
		}
	}
}

// TestSecretsOfBody: the credential members of a JSON or form body are
// secrets, and nothing else of it is.
func TestSecretsOfBody(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"a plant", `{"id":1,"name":"Fern","tag":"green"}`, nil},
		{"access_token member", `{"id":1,"name":"Fern","access_token":"tok-1"}`, []string{"tok-1"}},
		{"API key in another case", `{"id":1,"name":"Fern","X-API-KEY":"k-2"}`, []string{"k-2"}},
		{"a credential that is not a string", `{"id":1,"name":"Fern","token":7}`, nil},
		{"a name that says token", `{"id":1,"name":"token"}`, nil},
		{"a form", `id=1&name=Fern&access_token=tok-3`, []string{"tok-3"}},
		{"not JSON, no credential", `{"id":1,`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := secretsOfBody([]byte(tc.body), nil); !slices.Equal(got, tc.want) {
				t.Errorf("secretsOfBody(%s) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}
