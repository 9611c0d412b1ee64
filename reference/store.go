package reference

import (
	"context"
	"errors"
	"sync"
)

// Plant is a plant as the store keeps it: the fields of a NewPlant record.
// Tag is nil when the request had no tag; a pointer to "" when it sent an
// empty one.
type Plant struct {
	ID   int64
	Name string
	Tag  *string
}

// Store keeps the plants the server creates.
type Store interface {
	// Add stores p. It returns ErrDuplicateID when a plant with p.ID is
	// already stored; the server answers that with a 400 Error record. Any
	// other error is the store's own failure, answered with a 500.
	Add(ctx context.Context, p Plant) error
}

// ErrDuplicateID is returned by Store.Add for an id that is already stored.
// The document leaves the uniqueness of id "not shown"; the reference server
// refuses a second plant with one id, as a store keyed by id would.
var ErrDuplicateID = errors.New("a plant with this id is already stored")

// MemoryStore is a Store in memory, safe for concurrent use. It never forgets
// a plant and has no bound: it is for tests and demonstrations, not for a
// server open to the world.
type MemoryStore struct {
	mu     sync.Mutex
	plants map[int64]Plant
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{plants: make(map[int64]Plant)}
}

// Add stores p, or returns ErrDuplicateID. It returns no other error.
func (m *MemoryStore) Add(_ context.Context, p Plant) error {
	if p.Tag != nil {
		tag := *p.Tag // the caller keeps its pointer; the store keeps its own
		p.Tag = &tag
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.plants[p.ID]; ok {
		return ErrDuplicateID
	}
	m.plants[p.ID] = p
	return nil
}
