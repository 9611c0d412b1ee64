package exchange

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCapture: a capture keeps exactly the first bytes of a body up to its
// limit and within its budget, counts them all, and says why what it kept
// is not the whole body; a tee lets the body through untouched, ends the
// capture at a declared length, and keeps why its reading failed.
func TestCapture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		body      string
		chunk     int   // bytes a read gives at most
		length    int64 // declared (-1: unknown)
		limit     int64
		budget    int64 // 0: none
		fail      bool  // the body breaks off after its bytes
		wantKept  string
		wantTotal int64
		wantWhy   string
	}{
		{name: "whole", body: "hello", chunk: 2, length: -1, limit: 10, wantKept: "hello", wantTotal: 5},
		{name: "exactly the limit", body: "hello", chunk: 5, length: -1, limit: 5, wantKept: "hello", wantTotal: 5},
		{name: "past the limit keeps the first bytes", body: "hello world", chunk: 4, length: -1, limit: 6,
			wantKept: "hello ", wantTotal: 11, wantWhy: "body past 6 bytes"},
		{name: "one read past the limit keeps its first bytes", body: strings.Repeat("a", 3000), chunk: 3000, length: -1, limit: 2048,
			wantKept: strings.Repeat("a", 2048), wantTotal: 3000, wantWhy: "body past 2 KiB"},
		{name: "budget spent", body: "hello world", chunk: 4, length: -1, limit: 100, budget: 6,
			wantKept: "hell", wantTotal: 11, wantWhy: "body not kept: the proxy's memory for judging was full"},
		{name: "declared length read: whole", body: "hello", chunk: 5, length: 5, limit: 10, wantKept: "hello", wantTotal: 5},
		{name: "broke off", body: "hel", chunk: 2, length: -1, limit: 10, fail: true,
			wantKept: "hel", wantTotal: 3, wantWhy: "body not read to its end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var budget *Budget
			if tc.budget > 0 {
				budget = &Budget{Max: tc.budget}
			}
			c := NewCapture(tc.limit, budget)
			var r io.Reader = strings.NewReader(tc.body)
			if tc.fail {
				r = io.MultiReader(r, iotest.ErrReader(errors.New("reset")))
			}
			tee := NewTee(io.NopCloser(r), c, tc.length)
			buf := make([]byte, tc.chunk)
			var through strings.Builder
			for {
				n, err := tee.Read(buf)
				through.Write(buf[:n])
				if err != nil || tc.length >= 0 && int64(through.Len()) == tc.length {
					break
				}
			}
			if got, want := through.String(), tc.body; got != want {
				t.Errorf("passed %q, want %q", got, want)
			}
			if got := tee.Err() != nil; got != tc.fail {
				t.Errorf("Err = %v, want failed %v", tee.Err(), tc.fail)
			}
			kept, total, why := c.Take("body")
			if string(kept) != tc.wantKept || total != tc.wantTotal || why != tc.wantWhy {
				t.Errorf("Take = %q, %d, %q; want %q, %d, %q", kept, total, why, tc.wantKept, tc.wantTotal, tc.wantWhy)
			}
			c.Release()
			if budget != nil && budget.used.Load() != 0 {
				t.Errorf("the budget holds %d bytes after Release, want 0", budget.used.Load())
			}
		})
	}
}
