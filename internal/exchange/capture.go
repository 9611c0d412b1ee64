package exchange

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Capture keeps the first bytes of a body in flight, up to its limit and
// within its Budget, counts them all and says whether it kept the whole
// body (Take). A body past either bound passes whole all the same.
type Capture struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	limit  int64
	budget *Budget
	held   int64 // bytes this capture holds of the budget
	total  int64 // bytes that went through, kept or not
	eof    bool  // the body ended: total is its length
	past   bool  // bytes past limit were not kept
	full   bool  // the budget was spent: bytes were not kept
	done   bool  // taken: keep nothing more
}

// Budget bounds the bytes held by every Capture given it, at once.
type Budget struct {
	Max  int64
	used atomic.Int64
}

// Take takes n bytes of the budget, if it has them.
func (b *Budget) Take(n int64) bool {
	if b.used.Add(n) > b.Max {
		b.used.Add(-n)
		return false
	}
	return true
}

// Give gives n bytes back.
func (b *Budget) Give(n int64) { b.used.Add(-n) }

var capturePool = sync.Pool{New: func() any { return new(Capture) }}

// keepPooled bounds the buffer a capture brings back to the pool.
const keepPooled = 64 << 10

// NewCapture returns a capture that keeps the first limit bytes of a body,
// within budget (nil: none).
func NewCapture(limit int64, budget *Budget) *Capture {
	c := capturePool.Get().(*Capture)
	c.limit, c.budget = limit, budget
	return c
}

// Write keeps what p adds within the bounds and counts it all.
func (c *Capture) Write(p []byte) (int, error) {
	n := len(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return n, nil
	}
	c.total += int64(n)
	if room := c.limit - int64(c.buf.Len()); int64(len(p)) > room {
		p, c.past = p[:max(room, 0)], true
	}
	if c.full || len(p) == 0 {
		return n, nil
	}
	if c.budget != nil && !c.budget.Take(int64(len(p))) {
		c.full = true
		return n, nil
	}
	c.held += int64(len(p))
	c.buf.Write(p)
	return n, nil
}

// End marks the body as read to its end.
func (c *Capture) End() {
	c.mu.Lock()
	c.eof = true
	c.mu.Unlock()
}

// Take ends the capture and returns what it kept (valid until Release),
// the body's length, and why that is not the whole body ("" when it is).
func (c *Capture) Take(what string) (kept []byte, total int64, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	switch {
	case c.past:
		why = Past(what, c.limit)
	case c.full:
		why = what + " not kept: the proxy's memory for judging was full"
	case !c.eof:
		why = what + " not read to its end"
	}
	return c.buf.Bytes(), c.total, why
}

// Release gives a taken capture's memory back (none: nothing). Only one
// whose body ended goes back to the pool: another may still be written to.
func (c *Capture) Release() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.done = true
	if c.budget != nil {
		c.budget.Give(c.held)
	}
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

// Past says that a body (what) went past a bound of limit bytes.
func Past(what string, limit int64) string {
	switch {
	case limit >= 1<<20 && limit%(1<<20) == 0:
		return fmt.Sprintf("%s past %d MiB", what, limit>>20)
	case limit >= 1<<10 && limit%(1<<10) == 0:
		return fmt.Sprintf("%s past %d KiB", what, limit>>10)
	}
	return fmt.Sprintf("%s past %d bytes", what, limit)
}

// Tee is a body that writes what is read of it into a Capture (nil: none),
// until it ends, and keeps why reading it failed.
type Tee struct {
	rc    io.ReadCloser
	c     *Capture
	left  int64 // bytes still to come of a declared length; -1: unknown
	ended bool
	err   atomic.Pointer[error]
}

// NewTee returns a Tee of rc, of the declared length (-1: unknown), into c.
func NewTee(rc io.ReadCloser, c *Capture, length int64) Tee {
	return Tee{rc: rc, c: c, left: length}
}

func (t *Tee) Read(p []byte) (int, error) {
	if t.ended || t.left == 0 {
		// The transport reads past a declared length, perhaps after
		// net/http's server closed the body.
		t.end()
		return 0, io.EOF
	}
	n, err := t.rc.Read(p)
	if t.left > 0 {
		t.left -= int64(n)
	}
	if t.c != nil {
		t.c.Write(p[:n])
	}
	if err != nil && err != io.EOF {
		t.err.Store(&err)
	}
	if err == io.EOF || t.left == 0 {
		// Whole once its declared length went through.
		t.end()
	}
	return n, err
}

func (t *Tee) end() {
	t.ended = true
	if t.c != nil {
		t.c.End()
		t.c = nil
	}
}

// Err is why reading the body failed (nil when it did not).
func (t *Tee) Err() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (t *Tee) Close() error { return t.rc.Close() }
