// Package mutants holds deliberately broken Plant Store servers: each is the
// reference server with exactly one defect against one rule of the spec. The
// suite proves it can fail by failing every one of them, and by naming the
// rule each breaks.
//
// A mutant wraps the reference handler and changes the request it sees or
// the response it gives, so the reference itself stays the plainest honest
// implementation.
package mutants

import (
	"net/http"
	"slices"

	"github.com/plantcheck/plantcheck/spec/rules"
)

// Mutant is one broken server.
type Mutant struct {
	// Name is a short stable identifier.
	Name string
	// Defect says what is wrong, in a sentence.
	Defect string
	// Rules are the rules a suite must name when it catches the defect (any
	// one of them will do).
	Rules []rules.RuleID
	// Origin names, in a line, where the defect is met in real servers.
	Origin string
	// Slow marks a mutant that answers late: run it with a short timeout.
	Slow bool
	// LongToken marks a mutant whose defect shows only with a token of 72
	// bytes or more: run it with a long token.
	LongToken bool
	// Wrap builds the broken handler around the reference's.
	Wrap func(ref http.Handler, token string) http.Handler
}

// All is every mutant, in a stable order: by the part of the contract it
// breaks. Together they break every MUST rule of the catalog at least once
// (a test checks it).
var All = slices.Concat(createMutants, bodyMutants, authMutants, mediaMutants, responseMutants, limitMutants)

// mutant is a row of the table: a mutant, its wrapper and the rules it
// breaks.
func mutant(name, defect, origin string, wrap wrapper, broken ...rules.RuleID) Mutant {
	return Mutant{Name: name, Defect: defect, Origin: origin, Rules: broken, Wrap: wrap}
}

// Lookup returns the mutant called name.
func Lookup(name string) (Mutant, bool) {
	if i := slices.IndexFunc(All, func(m Mutant) bool { return m.Name == name }); i >= 0 {
		return All[i], true
	}
	return Mutant{}, false
}
