package proxy

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// What is kept of a body for judging is bounded twice: each body keeps at
// most Config.MaxJudge bytes, and all the bodies of the exchanges in flight
// together at most maxJudgeTotal, so that a thousand connections
// streaming megabytes cost the proxy no more than that. A body past either
// bound is forwarded whole all the same; only its judgement is given up.

// capture keeps the first bytes of a body as they are forwarded. Its writer
// (the request body's reader, run by the transport's goroutine; or the
// response copy loop) and its reader (the judge, once the exchange is over)
// are kept apart by its lock.
type capture struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	limit  int64         // bytes kept at most
	budget *atomic.Int64 // bytes held by every capture in flight
	held   int64         // bytes this capture holds of the budget
	total  int64         // bytes that went through, kept or not
	eof    bool          // the body ended: total is its length
	past   bool          // the body went past limit
	full   bool          // the budget was spent: bytes were not kept
	done   bool          // judged: keep nothing more
	length int64         // the body's declared length; -1 when unknown
}

var capturePool = sync.Pool{New: func() any { return new(capture) }}

// keepPooled bounds the buffer a capture brings back to the pool: a rare
// large body must not pin its buffer for ever.
const keepPooled = 64 << 10

// newCapture returns a capture that keeps up to limit bytes of a body of
// the declared length (-1: unknown), within the budget.
func newCapture(limit int64, budget *atomic.Int64, length int64) *capture {
	c := capturePool.Get().(*capture)
	c.limit, c.budget, c.length = limit, budget, length
	return c
}

// write keeps what p adds within the bounds and counts it all.
func (c *capture) write(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.total += int64(len(p))
	if c.past || c.full || len(p) == 0 {
		return
	}
	if int64(c.buf.Len()+len(p)) > c.limit {
		c.past = true
		return
	}
	if c.budget.Add(int64(len(p))) > maxJudgeTotal {
		c.budget.Add(-int64(len(p)))
		c.full = true
		return
	}
	c.held += int64(len(p))
	c.buf.Write(p)
}

// ended marks the body as read to its end.
func (c *capture) ended() {
	c.mu.Lock()
	c.eof = true
	c.mu.Unlock()
}

// take ends the capture: nothing more is kept, and what was is returned
// (valid until release): the body, its length in all, and why it is not
// the whole body ("" when it is).
func (c *capture) take(what string, limit int64) (body []byte, total int64, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	switch {
	case c.past:
		why = what + " past " + sizeOf(limit)
	case c.full:
		why = what + " not kept: the proxy's memory for judging was full"
	case !c.eof && (c.length < 0 || c.total != c.length):
		// A body of a declared length is whole once that many bytes went
		// through, though the reader that would see its end has not yet
		// asked: net/http's body reader holds no more.
		why = what + " not read to its end"
	}
	return c.buf.Bytes(), c.total, why
}

// release gives the capture's memory back; the capture must have been
// taken. Only a capture whose body ended goes back to the pool: one whose
// body is still being read (the upstream answered before the request body
// was sent whole) may still be written to, and is left to the collector.
func (c *capture) release() {
	c.mu.Lock()
	c.done = true
	c.budget.Add(-c.held)
	c.held = 0
	reuse := c.eof && c.buf.Cap() <= keepPooled
	if reuse {
		c.buf.Reset()
		c.total, c.eof, c.past, c.full, c.done = 0, false, false, false, false
	}
	c.mu.Unlock()
	if reuse {
		capturePool.Put(c)
	}
}

// teeBody is a request body that keeps what the transport reads of it
// (when cap is set), and says whether reading the client's body failed.
// Once the body has ended it lets go of the capture, which may then be
// reused by another exchange.
type teeBody struct {
	rc     io.ReadCloser
	cap    *capture
	left   int64 // bytes still to come of a declared length; -1: unknown
	ended  bool
	failed atomic.Bool
}

func (t *teeBody) Read(p []byte) (int, error) {
	if t.ended || t.left == 0 {
		// The transport reads once more past a declared length, to see
		// that nothing follows; net/http's server may by then have closed
		// the body, read whole, as the answer's header went out.
		t.end()
		return 0, io.EOF
	}
	n, err := t.rc.Read(p)
	if t.left > 0 {
		t.left -= int64(n)
	}
	if t.cap != nil {
		t.cap.write(p[:n])
	}
	switch {
	case err == io.EOF:
		t.end()
	case err != nil:
		t.failed.Store(true)
	}
	return n, err
}

func (t *teeBody) end() {
	t.ended = true
	if t.cap != nil {
		t.cap.ended()
		t.cap = nil
	}
}

func (t *teeBody) Close() error { return t.rc.Close() }
