package client

import (
	"fmt"
	"strings"
	"testing"
)

// TestFlightBound: a connection fault of a request sent at the current
// bound halves it (those sent before the cut are counted, not cut for
// again), never below one; each run of as many answers as the bound, with
// no fault, raises it by one, up to the ceiling.
func TestFlightBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ceiling int
		// ops, in order: 'f' a fault of the next request entered, 'F' of
		// a request entered before the last cut, 'a' an answer to the next
		// request entered.
		ops    string
		limit  int
		faults Faults
	}{
		{"a fault halves the bound", 16, "f", 8, Faults{Kinds: map[string]int{"reset": 1}, At: 16, Lowest: 8}},
		{"a fault sent before the cut is not cut for", 16, "fF", 8, Faults{Kinds: map[string]int{"reset": 2}, At: 16, Lowest: 8}},
		{"each fault at the new bound halves it again", 16, "fff", 2, Faults{Kinds: map[string]int{"reset": 3}, At: 16, Lowest: 2}},
		{"never below one", 2, "fff", 1, Faults{Kinds: map[string]int{"reset": 3}, At: 2, Lowest: 1}},
		{"answers as many as the bound raise it by one", 4, "faa", 3, Faults{Kinds: map[string]int{"reset": 1}, At: 4, Lowest: 2}},
		{"up to the ceiling", 4, "faaaaaaaaa", 4, Faults{Kinds: map[string]int{"reset": 1}, At: 4, Lowest: 2}},
		{"an answer at the ceiling changes nothing", 4, "aaaa", 4, Faults{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlight(tt.ceiling, nil)
			var before *pass // a request entered before the last cut
			for _, op := range tt.ops {
				p := f.enter(false)
				f.leave(p)
				switch op {
				case 'f':
					before = p
					f.faulted(p, Reset, false, func() string { return "the body `{}`" })
				case 'F':
					f.faulted(before, Reset, false, func() string { return "the body `{}`" })
				case 'a':
					f.answered(p)
				}
			}
			if f.limit != tt.limit {
				t.Errorf("the bound is %d, want %d", f.limit, tt.limit)
			}
			if got := f.stats(); got.Summary() != tt.faults.Summary() || got.Lowest != tt.faults.Lowest {
				t.Errorf("faults %+v, want %+v", got, tt.faults)
			}
		})
	}
}

// TestFlightStopped: a target that refuses every connection since its last
// answer stopped accepting connections, and the verdict says so, naming the
// first request whose connection it closed (else reset) with no answer; an
// answer since, or no refusal, says nothing of it.
func TestFlightStopped(t *testing.T) {
	t.Parallel()
	const stopped = "; the target stopped accepting connections"
	tests := []struct {
		name string
		// ops, in order: 'c' closed with no answer, 'r' reset, 'x'
		// refused, 'a' an answer begun; each of its own request, whose body is
		// its place in ops.
		ops  string
		want string // the end of the summary ("": it does not say the target stopped)
	}{
		{"closed, then refused", "acxx", stopped + ": it closed the connection of a request with the body `1` with no answer, and it refused every connection since its last answer (2)"},
		{"reset only", "arrxx", stopped + ": it reset the connection of a request with the body `1` with no answer, and it refused every connection since its last answer (2)"},
		{"a closed connection names the request before a reset", "arrcrcxx", stopped + ": it closed the connection of a request with the body `3` with no answer, and it refused every connection since its last answer (2)"},
		{"refused only", "axxx", stopped + ": it refused every connection since its last answer (3)"},
		{"a connection closed after the first refusal is named all the same (the client sees them in the race's order)", "arxcx", stopped + ": it closed the connection of a request with the body `3` with no answer, and it refused every connection since its last answer (2)"},
		{"answered since", "cxxa", ""},
		{"no refusal", "acr", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFlight(4, nil)
			for i, op := range tt.ops {
				p := f.enter(false)
				f.leave(p)
				body := func() string { return fmt.Sprintf("the body `%d`", i) }
				switch op {
				case 'c':
					f.faulted(p, Closed, false, body)
				case 'r':
					f.faulted(p, Reset, false, body)
				case 'x':
					f.faulted(p, Refused, false, body)
				case 'a':
					f.heard()
				}
			}
			got := f.stats().Summary()
			if tt.want == "" && strings.Contains(got, stopped) || tt.want != "" && !strings.HasSuffix(got, tt.want) {
				t.Errorf("summary %q\nwant it to end %q", got, tt.want)
			}
		})
	}
}
