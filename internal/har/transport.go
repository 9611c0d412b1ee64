package har

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// Transport records every exchange made through it into a Writer, once the
// caller closes the answer's body: the request as sent (its body read
// through GetBody when it has one, else a tee), the answer as read, up to
// MaxBody bytes of each, secrets hidden (Token, Known's, its own). Entries
// are written off the caller's path by one goroutine (Start); Stop waits
// until every entry is written.
type Transport struct {
	Base  http.RoundTripper
	W     *Writer
	Token string
	Known *evidence.Set
	queue chan *Record
	done  chan struct{}
}

// Start starts the goroutine that writes the entries.
func (t *Transport) Start() {
	t.queue, t.done = make(chan *Record, 256), make(chan struct{})
	go func() {
		defer close(t.done)
		for x := range t.queue {
			t.W.Add(NewEntry(*x, NewHider(t.Token, t.Known.Redactor(x.Secrets(true))), MaxBody))
		}
	}()
}

// Stop, after Start, writes what is queued and stops; no exchange may be
// recorded after.
func (t *Transport) Stop() {
	close(t.queue)
	<-t.done
}

// RoundTrip sends the request through Base and records it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	x := &Record{Started: time.Now(), Exchange: exchange.Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone()}}
	var sent *exchange.Capture
	switch {
	case req.Body == nil || req.Body == http.NoBody:
	case req.GetBody != nil:
		if rc, err := req.GetBody(); err == nil {
			c := exchange.NewCapture(MaxBody, nil)
			io.Copy(c, rc)
			c.End()
			x.Body, x.BodyTotal = kept(c)
			rc.Close()
		} else {
			x.NotKept = true
		}
	default:
		sent = exchange.NewCapture(MaxBody, nil)
		tee := exchange.NewTee(req.Body, sent, -1)
		r2 := *req
		r2.Body = &tee
		req = &r2
	}
	resp, err := t.Base.RoundTrip(req)
	if sent != nil {
		x.Body, x.BodyTotal = kept(sent)
	}
	if err != nil {
		x.Duration = time.Since(x.Started)
		x.Comment = NoAnswer + err.Error()
		t.queue <- x
		return resp, err
	}
	x.Status, x.RespHeader = resp.StatusCode, resp.Header
	c := exchange.NewCapture(MaxBody, nil)
	resp.Body = &answerBody{Tee: exchange.NewTee(resp.Body, c, -1), c: c, t: t, x: x}
	return resp, nil
}

// CloseIdleConnections closes Base's idle connections.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.Base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// kept copies what a capture kept of a body, its length, and releases it.
func kept(c *exchange.Capture) ([]byte, int64) {
	b, total, _ := c.Take("")
	b = bytes.Clone(b)
	c.Release()
	return b, total
}

// answerBody keeps what the caller reads of an answer, and records the
// exchange when the caller closes it.
type answerBody struct {
	exchange.Tee
	c    *exchange.Capture
	t    *Transport
	x    *Record
	once sync.Once
}

func (b *answerBody) Close() error {
	err := b.Tee.Close()
	b.once.Do(func() {
		b.x.Duration = time.Since(b.x.Started)
		b.x.RespBody, b.x.RespTotal = kept(b.c)
		if err := b.Err(); err != nil {
			b.x.Comment = "the answer broke off: " + err.Error()
			b.x.RespIncomplete = b.x.Comment
		}
		b.t.queue <- b.x
	})
	return err
}
