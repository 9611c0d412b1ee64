package spec

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
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
}

// memoMax bounds the verdicts kept: a few kilobytes each at most.
const memoMax = 2048

func (m *memo) get(k [sha256.Size]byte) (verdict, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[k]
	r.vs = slices.Clone(r.vs)
	return r, ok
}

func (m *memo) put(k [sha256.Size]byte, r verdict) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= memoMax {
		m.m = make(map[[sha256.Size]byte]verdict, 64)
	}
	r.vs = slices.Clone(r.vs)
	m.m[k] = r
}

// digest writes each part with its length before it, so that no two
// different lists of parts give the same bytes.
type digest struct{ h hash.Hash }

func newDigest(kind string) digest {
	d := digest{sha256.New()}
	d.str(kind)
	return d
}

func (d digest) bytes(b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	d.h.Write(n[:])
	d.h.Write(b)
}

func (d digest) str(s string) { d.bytes([]byte(s)) }

// header writes every field of h, in the order of their names.
func (d digest) header(h http.Header) {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	slices.Sort(names)
	d.str(strconv.Itoa(len(names)))
	for _, name := range names {
		d.str(name)
		d.str(strconv.Itoa(len(h[name])))
		for _, v := range h[name] {
			d.str(v)
		}
	}
}

func (d digest) sum() (k [sha256.Size]byte) {
	d.h.Sum(k[:0])
	return k
}
