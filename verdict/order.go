package verdict

import (
	"fmt"
	"slices"
)

// Shown is a failure block as every report shows it: its number, the
// same in the console, summary.md, report.html and junit.xml, and its
// evidence with each exchange marked when the evidence before it in the
// block showed it already (so that a report shows each exchange once).
type Shown struct {
	// N numbers the service's blocks from 1 in the console's order; a
	// client block (proxy) is numbered among the clients', from 1.
	N     int
	Label string // "3)" or "client 1)"
	Index int    // the block's place in Verdict.Failures
	Block
	Evidence []ShownEvidence
}

// ShownEvidence is one piece of evidence of a shown block.
type ShownEvidence struct {
	Evidence
	// Same: the exchange is the one the evidence above it showed.
	Same bool
}

// FailureOrder gives the indices into v.Failures in the one order of every
// output: the service's blocks first, the rules that decide the verdict
// first (MUST, then SHOULD, then the rest), each level in catalog order,
// the blocks of one rule in the order they were found; then the clients'
// blocks in the order they were found. The console (serverBlocks) gives
// the service's blocks in this order too; a test holds the two together.
func (v *Verdict) FailureOrder() (server, client []int) {
	for i, b := range v.Failures {
		if b.Side == "client" {
			client = append(client, i)
		} else {
			server = append(server, i)
		}
	}
	slices.SortStableFunc(server, func(i, j int) int {
		a, b := v.Failures[i], v.Failures[j]
		if c := levelRank(a.Level) - levelRank(b.Level); c != 0 {
			return c
		}
		return catalogIndex(a.Rule) - catalogIndex(b.Rule)
	})
	return server, client
}

// shown is every failure block, numbered and in FailureOrder.
func (v *Verdict) shown() []Shown {
	server, client := v.FailureOrder()
	out := make([]Shown, 0, len(v.Failures))
	for n, i := range server {
		out = append(out, v.shownBlock(i, n+1, fmt.Sprintf("%d)", n+1)))
	}
	for n, i := range client {
		out = append(out, v.shownBlock(i, n+1, fmt.Sprintf("client %d)", n+1)))
	}
	return out
}

func (v *Verdict) shownBlock(i, n int, label string) Shown {
	b := v.Failures[i]
	s := Shown{N: n, Label: label, Index: i, Block: b}
	var last Evidence
	for _, e := range b.Evidence {
		same := e.Request != "" && e.Request == last.Request && e.Response == last.Response && e.Reproduce == last.Reproduce
		s.Evidence = append(s.Evidence, ShownEvidence{Evidence: e, Same: same})
		if e.Request != "" {
			last = e
		}
	}
	return s
}

// numberOf is the label of the block at index i of v.Failures ("" for
// none).
func (v *Verdict) numberOf(i int) string {
	for _, s := range v.shown() {
		if s.Index == i {
			return s.Label
		}
	}
	return ""
}
