package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
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
// past the grace are cut and counted, and Serve says so.
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
	h, err := New(Config{Upstream: mustURL(base), MaxJudge: config.DefaultMaxJudge, Timeout: DefaultTimeout})
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
	h2, _ := New(Config{Upstream: mustURL(endless), MaxJudge: config.DefaultMaxJudge, Timeout: DefaultTimeout})
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
	if v := h2.Verdict(Options{}); v.Counts.Exchanges != 1 || v.Counts.Judged != 0 {
		t.Errorf("the cut exchange: %d exchanges, %d judged; want 1 counted, not judged", v.Counts.Exchanges, v.Counts.Judged)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if v := h.Verdict(Options{}); v.Counts.Exchanges != 2 || v.Counts.Judged != 2 || v.Counts.ClientViolations != 1 {
		t.Errorf("counts %+v, want two judged exchanges, one client's violation", v.Counts)
	}
}
