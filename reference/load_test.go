package reference

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveLoopback serves s on a loopback port with the server's own limits
// (changed by tune, if given) until the test ends or stop is called. It
// returns the base URL and stop, which shuts down as SIGTERM would.
func serveLoopback(t *testing.T, s *Server, tune func(*http.Server)) (base string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	if tune != nil {
		tune(hs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, hs, 5*time.Second) }()
	var once sync.Once
	var serveErr error
	stop = func() error {
		once.Do(func() { cancel(); serveErr = <-served })
		return serveErr
	}
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String(), stop
}

func create(c *http.Client, base string, id int64) (int, error) {
	req, _ := http.NewRequest(http.MethodPost, base+"/plants",
		bytes.NewReader([]byte(fmt.Sprintf(`{"id":%d,"name":"Fern %d"}`, id, id))))
	req.Header = goodHeaders.Clone()
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func loadClient(conns int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.MaxIdleConnsPerHost = conns
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// TestLoad creates plants from many clients at once, each with its own ids:
// every request gets 200, and the store holds exactly the plants
// acknowledged. Bounded: clients × perClient requests, on loopback.
func TestLoad(t *testing.T) {
	const clients, perClient = 32, 40
	store := NewMemoryStore()
	base, stop := serveLoopback(t, newServer(t, Config{Store: store}), nil)
	c := loadClient(clients)
	defer func() {
		// A connection the client dialled but never used counts as busy
		// for its first 5 seconds (net/http's Shutdown): close those.
		c.CloseIdleConnections()
		if err := stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}()

	var ok, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perClient {
				status, err := create(c, base, int64(i*perClient+j))
				if err == nil && status == http.StatusOK {
					ok.Add(1)
				} else {
					other.Add(1)
					t.Errorf("client %d request %d: status %d, err %v", i, j, status, err)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d requests from %d clients in %s: %d ok, %d not", clients*perClient, clients,
		time.Since(start).Round(time.Millisecond), ok.Load(), other.Load())
	if got, want := store.Len(), int(ok.Load()); got != want {
		t.Errorf("store holds %d plants, %d were acknowledged", got, want)
	}
	for id := range int64(clients * perClient) {
		if p, found := store.Get(id); !found || p.Name != fmt.Sprintf("Fern %d", id) {
			t.Errorf("plant %d: stored %v, %+v", id, found, p)
		}
	}
}

// TestRacingOnOneID sends the same id from two clients at once, many times:
// exactly one of each pair gets 200, the other the duplicate-id 400.
func TestRacingOnOneID(t *testing.T) {
	const rounds = 100
	store := NewMemoryStore()
	base, _ := serveLoopback(t, newServer(t, Config{Store: store}), nil)
	c := loadClient(4)
	for id := range int64(rounds) {
		var statuses [2]int
		var wg sync.WaitGroup
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := create(c, base, id)
				if err != nil {
					t.Error(err)
				}
				statuses[k] = s
			}()
		}
		wg.Wait()
		oks := 0
		for _, s := range statuses {
			if s == http.StatusOK {
				oks++
			} else if s != http.StatusBadRequest {
				t.Errorf("id %d: status %d, want 200 or 400", id, s)
			}
		}
		if oks != 1 {
			t.Errorf("id %d: %d clients got 200, want exactly 1 (statuses %v)", id, oks, statuses)
		}
	}
	if got := store.Len(); got != rounds {
		t.Errorf("store holds %d plants, want %d", got, rounds)
	}
}

// TestSlowHeadersAreCutOff opens a connection that sends its headers a
// byte at a time: the read-header timeout closes it, while other clients
// are served meanwhile.
func TestSlowHeadersAreCutOff(t *testing.T) {
	const limit = 300 * time.Millisecond
	base, _ := serveLoopback(t, newServer(t, Config{}), func(hs *http.Server) { hs.ReadHeaderTimeout = limit })
	if readHeaderTimeout < time.Second {
		t.Errorf("the default read-header timeout is %s; a test must not weaken it", readHeaderTimeout)
	}
	conn, err := net.Dial("tcp", base[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cut := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		head := "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + testToken + "\r\n"
		for i := range len(head) {
			if _, err := conn.Write([]byte{head[i]}); err != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		io.Copy(io.Discard, conn) // returns when the server closes
		cut <- time.Since(start)
	}()

	c := loadClient(2)
	for id := range int64(10) {
		if s, err := create(c, base, id); err != nil || s != http.StatusOK {
			t.Errorf("another client: status %d, err %v", s, err)
		}
	}
	select {
	case d := <-cut:
		if d > limit+time.Second {
			t.Errorf("the slow client was cut off after %s, want about %s", d, limit)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the slow client was never cut off")
	}
}

// slowStore delays every Add, so that requests are in flight when the
// server is told to stop.
type slowStore struct {
	*MemoryStore
	delay   time.Duration
	entered *atomic.Int32
}

func (s slowStore) Add(ctx context.Context, p Plant) error {
	s.entered.Add(1)
	time.Sleep(s.delay)
	return s.MemoryStore.Add(ctx, p)
}

// TestShutdownUnderLoad stops the server (as SIGTERM does, through Serve's
// context) while requests are in flight: those finish with 200, later
// requests are refused, and every acknowledged plant is in the store.
func TestShutdownUnderLoad(t *testing.T) {
	const clients = 16
	store := slowStore{MemoryStore: NewMemoryStore(), delay: 100 * time.Millisecond, entered: new(atomic.Int32)}
	base, stop := serveLoopback(t, newServer(t, Config{Store: store}), nil)
	c := loadClient(clients)

	var acked sync.Map
	var okCount, refused, failed atomic.Int64
	var wg sync.WaitGroup
	var next atomic.Int64
	var stopping atomic.Bool
	stopped := make(chan struct{})
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id := next.Add(1)
				status, err := create(c, base, id)
				switch {
				case err == nil && status == http.StatusOK:
					acked.Store(id, true)
					okCount.Add(1)
				case err != nil && stopping.Load():
					// Refused, or cut on an idle connection the shutdown
					// closed: never read by the server, so not stored.
					refused.Add(1)
				default:
					failed.Add(1)
					t.Errorf("id %d: status %d, err %v", id, status, err)
				}
				select {
				case <-stopped:
					return
				default:
				}
			}
		}()
	}
	// Wait until every client has a request in flight.
	for deadline := time.Now().Add(5 * time.Second); store.entered.Load() < clients && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stopping.Store(true)
	if err := stop(); err != nil {
		t.Errorf("shutdown: %v", err)
	}
	close(stopped)
	wg.Wait()
	t.Logf("%d acknowledged, %d refused after shutdown, %d failed", okCount.Load(), refused.Load(), failed.Load())
	if okCount.Load() < clients {
		t.Errorf("only %d requests acknowledged: the requests in flight did not finish", okCount.Load())
	}
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if _, found := store.Get(k.(int64)); !found {
			t.Errorf("plant %d was acknowledged but is not stored", k)
		}
		return true
	})
	if got := store.Len(); got != n {
		t.Errorf("store holds %d plants, %d were acknowledged", got, n)
	}
	if _, err := create(c, base, -1); err == nil {
		t.Errorf("the server still answers after shutdown")
	}
}
