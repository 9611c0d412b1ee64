package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// memo keeps the document's verdicts on recently judged messages, keyed by
// a digest of everything the validator reads of them. A suite sends the same
// requests to many servers (selftest sends one seed's to every mutant, and
// `judge` reads a run's own traffic again), and servers answer many of them
// alike; the validator's verdict on a message is a function of its bytes,
// so a verdict found once is the verdict. Bounded: when full, it starts
// again empty.
type memo struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]verdict
}

// verdict is the document's verdict on one message.
type verdict struct {
	ok bool
	vs []Violation
	// body: a response's violations of the checks on its body
	// (checkBody), which follow the others.
	body []Violation
	// value is a short conforming body as ReadBody decoded it, shared
	// by every caller that reads it (nil when not kept).
	value any
}

// memoMax bounds the verdicts kept: a few kilobytes each at most.
const memoMax = 2048

func (m *memo) get(k [sha256.Size]byte) (verdict, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[k]
	r.vs, r.body = slices.Clone(r.vs), slices.Clone(r.body)
	return r, ok
}

func (m *memo) put(k [sha256.Size]byte, r verdict) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= memoMax {
		m.m = make(map[[sha256.Size]byte]verdict, 64)
	}
	r.vs, r.body = slices.Clone(r.vs), slices.Clone(r.body)
	m.m[k] = r
}

// key is the digest of a message's parts, each written with its length
// before it, so that no two different lists of parts give the same bytes.
// A part is a string or a header, whose fields are written in the order of
// their names.
func key(parts ...any) (k [sha256.Size]byte) {
	h := sha256.New()
	write := func(p []byte) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(p))))
		h.Write(p)
	}
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			write([]byte(p))
		case []byte:
			write(p)
		case http.Header:
			names := slices.Sorted(maps.Keys(p))
			write(strconv.AppendInt(nil, int64(len(names)), 10))
			for _, name := range names {
				write([]byte(name))
				write(strconv.AppendInt(nil, int64(len(p[name])), 10))
				for _, v := range p[name] {
					write([]byte(v))
				}
			}
		}
	}
	h.Sum(k[:0])
	return k
}
