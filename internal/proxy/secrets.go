package proxy

import (
	"slices"
	"sync"

	"github.com/plantcheck/plantcheck/internal/evidence"
)

// Which values of an exchange are secrets is package exchange's to say;
// the proxy remembers them across exchanges.

// maxSecrets bounds the distinct secrets the proxy remembers across
// exchanges, to hide one exchange's credential where another's evidence
// shows it. An exchange's own secrets are always hidden in its evidence.
const maxSecrets = 256

// secrets remembers the credentials seen, so that every piece of evidence
// hides all of them, whichever exchange carried them.
type secrets struct {
	mu   sync.Mutex
	seen map[string]bool
	list []string
	red  *evidence.Redactor // of list, built when first needed
}

// add remembers the secrets of one exchange.
func (s *secrets) add(vs []string) {
	if len(vs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, v := range vs {
		if s.seen[v] || len(s.list) >= maxSecrets {
			continue
		}
		s.seen[v] = true
		s.list = append(s.list, v)
		s.red = nil
	}
}

// redactor returns a Redactor of every secret remembered and of extra.
func (s *secrets) redactor(extra []string) *evidence.Redactor {
	s.mu.Lock()
	defer s.mu.Unlock()
	missing := false
	for _, v := range extra {
		if !s.seen[v] {
			missing = true
			break
		}
	}
	if missing {
		return evidence.New(append(slices.Clone(s.list), extra...)...)
	}
	if s.red == nil {
		s.red = evidence.New(s.list...)
	}
	return s.red
}
