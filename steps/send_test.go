package steps

import (
	"errors"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/judge"
)

// TestReadBounded: a body is read whole up to the bound whatever length the
// answer declares (none, the true one, a smaller or a larger one), and past
// the bound it is cut and an error.
func TestReadBounded(t *testing.T) {
	const limit = 4096
	tests := []struct {
		name     string
		body     int
		declared int64
		tooLarge bool
	}{
		{"empty, no length", 0, -1, false},
		{"small, its length", 10, 10, false},
		{"no length", 3000, -1, false},
		{"a length too small", 3000, 5, false},
		{"a length too large", 30, 1 << 40, false},
		{"the bound exactly", limit, limit, false},
		{"one past the bound, its length", limit + 1, limit + 1, true},
		{"far past the bound, no length", 5 * limit, -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Repeat("x", tt.body)
			got, err := readBounded(strings.NewReader(body), tt.declared, limit)
			if tt.tooLarge {
				if !errors.Is(err, judge.ErrBodyTooLarge) || len(got) != limit {
					t.Fatalf("got %d bytes, err %v; want the first %d and ErrBodyTooLarge", len(got), err, limit)
				}
				return
			}
			if err != nil || string(got) != body {
				t.Fatalf("got %d bytes, err %v; want the %d sent", len(got), err, tt.body)
			}
			if c := cap(got); c > max(tt.body, 0)+limit+512 {
				t.Errorf("a buffer of %d bytes for %d", c, tt.body)
			}
		})
	}
}
