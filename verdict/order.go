package verdict

import "slices"

// OrderFailures puts the failure blocks in the one order every report
// gives them, and numbers them from 1 (Block.Number): the service's
// blocks first, the rules that decide the verdict first (MUST, then
// SHOULD, then the rest), each level in catalog order, the blocks of one
// rule in the order they were found; then the clients' blocks (proxy), in
// theirs. A scenario's Failure follows its block. Finish calls it; a
// driver that adds blocks after Finish calls it again.
func (v *Verdict) OrderFailures() {
	type placed struct {
		b    Block
		from int // the block's number before, from 1
	}
	ps := make([]placed, len(v.Failures))
	for i, b := range v.Failures {
		ps[i] = placed{b, i + 1}
	}
	slices.SortStableFunc(ps, func(a, b placed) int {
		if c := sideRank(a.b.Side) - sideRank(b.b.Side); c != 0 {
			return c
		}
		if a.b.Side == "client" {
			return 0
		}
		if c := levelRank(a.b.Level) - levelRank(b.b.Level); c != 0 {
			return c
		}
		return catalogIndex(a.b.Rule) - catalogIndex(b.b.Rule)
	})
	to := make(map[int]int, len(ps))
	for i := range ps {
		to[ps[i].from] = i + 1
		ps[i].b.Number = i + 1
		v.Failures[i] = ps[i].b
	}
	for i := range v.Scenarios {
		if n := v.Scenarios[i].Failure; n > 0 {
			v.Scenarios[i].Failure = to[n]
		}
	}
}

func sideRank(side string) int {
	if side == "client" {
		return 1
	}
	return 0
}
