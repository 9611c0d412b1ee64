package reference

// Get and Len read a MemoryStore for the tests: the server only adds.

// Get returns the plant stored with id.
func (m *MemoryStore) Get(id int64) (Plant, bool) {
	m.mu.Lock()
	p, ok := m.plants[id]
	m.mu.Unlock()
	if p.Tag != nil {
		tag := *p.Tag
		p.Tag = &tag
	}
	return p, ok
}

// Len returns the number of plants stored.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.plants)
}
