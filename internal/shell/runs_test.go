package shell

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// repeatedPlain is repeated by its definition, copy by copy: the oracle of
// the quicker one.
func repeatedPlain(b []byte) ([]byte, int) {
	for p := 1; p <= runUnit && 2*p <= len(b); p++ {
		unit := b[:p]
		n := 1
		for (n+1)*p <= len(b) && bytes.Equal(b[n*p:(n+1)*p], unit) {
			n++
		}
		if n*p < RunBytes {
			continue
		}
		if unit[0] == '-' || bytes.IndexByte(unit, '\n') >= 0 || !Printable(unit) {
			return nil, 0
		}
		return unit, n
	}
	return nil, 0
}

// runsPlain is Runs by its definition, each byte tried for a run, with no
// early stop: the oracle of the quicker one. It gives the commands for
// any limit, and the length of the text between runs, which the limit
// bounds.
func runsPlain(b []byte) ([]string, int, bool) {
	var cmds []string
	lit, litLen, runs := 0, 0, 0
	flush := func(end int) bool {
		if end > lit {
			if !Printable(b[lit:end]) {
				return false
			}
			litLen += end - lit
			cmds = append(cmds, "printf '%s' "+Quote(string(b[lit:end])))
		}
		return true
	}
	for i := 0; i < len(b); {
		unit, n := repeatedPlain(b[i:])
		if n == 0 {
			i++
			continue
		}
		if !flush(i) {
			return nil, 0, false
		}
		runs++
		cmds = append(cmds, fmt.Sprintf("yes %s | head -n %d | tr -d '\\n'", Quote(string(unit)), n))
		i += len(unit) * n
		lit = i
	}
	if !flush(len(b)) || runs == 0 {
		return nil, 0, false
	}
	return cmds, litLen, true
}

// TestRunsAsDefined holds Runs and its finder of runs to their definitions on texts
// with runs of every kind: units of 1 to 70 bytes, runs just under and
// over RunBytes, a unit of a line break or a leading '-', text between,
// cut anywhere, under limits that keep and refuse them.
func TestRunsAsDefined(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	piece := func() string {
		switch rng.IntN(6) {
		case 0:
			return strings.Repeat("x", 200+rng.IntN(120))
		case 1:
			unit := []string{"ab", "Monstera deliciosa ", "-x", "a\n", "[", "]", "é", "\x00\x01", strings.Repeat("q", 63) + "z", strings.Repeat("w", 69) + "v"}[rng.IntN(10)]
			return strings.Repeat(unit, rng.IntN(2*RunBytes/len(unit)+2))
		case 2:
			return fmt.Sprintf(`,"m%05d":"%s"`, rng.IntN(100000), strings.Repeat("x", rng.IntN(300)))
		case 3:
			b := make([]byte, rng.IntN(40))
			for i := range b {
				b[i] = "abc-\n\"xy"[rng.IntN(8)]
			}
			return string(b)
		case 4:
			return strings.Repeat("ab", 127) + "a"
		}
		return `{"id":1,"name":"`
	}
	for range 150 {
		var sb strings.Builder
		for range rng.IntN(6) {
			sb.WriteString(piece())
		}
		b := []byte(sb.String())
		if len(b) > 0 && rng.IntN(3) == 0 {
			b = b[rng.IntN(len(b)):]
		}
		f := newRunFinder(b)
		for i := 0; i < len(b); i += 1 + rng.IntN(16) {
			gu, gn := f.at(i)
			wu, wn := repeatedPlain(b[i:])
			if gn != wn || !bytes.Equal(gu, wu) {
				t.Fatalf("at %d of %q: %q, %d; want %q, %d", i, b, gu, gn, wu, wn)
			}
		}
		cmds, litLen, ok := runsPlain(b)
		for _, limit := range []int{0, 10, 300, 16 << 10} {
			got, gok := Runs(b, limit)
			want, wok := cmds, ok && litLen <= limit
			if !wok {
				want = nil
			}
			if gok != wok || !slices.Equal(got, want) {
				t.Fatalf("Runs(%q, %d) = %q, %v; want %q, %v", b, limit, got, gok, want, wok)
			}
		}
	}
}
