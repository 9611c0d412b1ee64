package selftest

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
)

// missedUnder is drop-tag, except with the token that seed draws for a
// mutant: there it is the reference. A defect that shows under some draws
// only, as a check that catches a mutant under some draws only.
func missedUnder(t *testing.T, seed uint64) (dropTag, missed mutants.Mutant) {
	t.Helper()
	dropTag, ok := mutants.Lookup("drop-tag")
	if !ok {
		t.Fatal("no mutant drop-tag")
	}
	token, _ := drawn(seed, 13)
	return dropTag, mutants.Mutant{
		Name: "drop-tag-but-once", Defect: "drops the tag, but for one token", Rules: dropTag.Rules,
		Wrap: func(ref http.Handler, tok string) http.Handler {
			if tok == token {
				return ref
			}
			return dropTag.Wrap(ref, tok)
		},
	}
}

// TestSeedsNameTheMiss: under several seeds, every server runs under each,
// and a mutant is caught only if caught under every one; a mutant passed
// under one seed fails the self-test, and the gap names that seed and the
// rerun that replays it.
func TestSeedsNameTheMiss(t *testing.T) {
	t.Parallel()
	dropTag, missed := missedUnder(t, 2)
	var draws uint64
	res, err := Run(context.Background(), Config{
		Mutants: []mutants.Mutant{dropTag, missed}, Tags: "@CREATE-TAG", Seeds: 3,
		drawSeed: func() uint64 { draws++; return draws },
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := []uint64{1, 2, 3}; !slices.Equal(res.Seeds, want) {
		t.Errorf("seeds %v, want %v", res.Seeds, want)
	}
	for i, ref := range res.Reference {
		if !ref.passes() || ref.Seed != res.Seeds[i] {
			t.Errorf("the reference's run %d: seed %d, err %v, failed %v; want seed %d and a pass", i, ref.Seed, ref.Err, ref.Failed, res.Seeds[i])
		}
	}
	want := map[string]struct {
		verdicts []Verdict // one per seed
		row      Verdict
	}{
		"drop-tag":          {[]Verdict{Caught, Caught, Caught}, Caught},
		"drop-tag-but-once": {[]Verdict{Caught, Survived, Caught}, Survived},
	}
	for _, row := range res.Rows {
		var got []Verdict
		for i, run := range row.Trials {
			got = append(got, run.Verdict)
			if run.Seed != res.Seeds[i] {
				t.Errorf("%s's run %d: seed %d, want %d", row.Mutant.Name, i, run.Seed, res.Seeds[i])
			}
		}
		if w := want[row.Mutant.Name]; !slices.Equal(got, w.verdicts) || row.Verdict() != w.row {
			t.Errorf("%s: verdicts %v, row %s; want %v, row %s", row.Mutant.Name, got, row.Verdict(), w.verdicts, w.row)
		}
	}
	if res.OK() || res.Caught() != 1 {
		t.Errorf("OK() = %v, Caught() = %d; want false, 1", res.OK(), res.Caught())
	}
	var out bytes.Buffer
	res.Write(&out)
	// A mean time, to the millisecond: 850ms, or 1.35s on a loaded machine
	// (under the race detector, beside other tests).
	const mean = `(\d+ms|\d+(\.\d+)?s|\d+m[\d.]+s)`
	for _, re := range []string{
		`(?m)^reference server: passes under each of 3 seeds \(\d+ scenarios, \d+( to \d+)? exchanges a run\)$`,
		`(?m)^MUTANT +DEFECT +CAUGHT BY +VERDICT +MEAN TIME$`,
		`(?m)^drop-tag +leaves the tag out .* CREATE-TAG +caught 3 of 3 seeds +` + mean + `$`,
		`(?m)^drop-tag-but-once +drops the tag, but for one token +CREATE-TAG +SURVIVED: caught 2 of 3 seeds +` + mean + `$`,
		`(?m)^mutation score: 1 of 2 mutants caught under each of 3 seeds \(50%\)$`,
		`(?m)^one verdict per answer: 9 of 9 runs agree`,
		`(?m)^SELFTEST: FAIL$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", re, out.String())
		}
	}
	var gaps []string
	for line := range strings.Lines(out.String()) {
		if strings.HasPrefix(line, "gap:") {
			gaps = append(gaps, line)
		}
	}
	wantGap := `gap: mutant "drop-tag-but-once" (drops the tag, but for one token) is not caught by CREATE-TAG under seed 2; rerun: plantcheck selftest --mutant drop-tag-but-once --seed 2 --tags '@CREATE-TAG'` + "\n"
	if !slices.Equal(gaps, []string{wantGap}) {
		t.Errorf("gap lines %q, want %q", gaps, wantGap)
	}
}

// TestSeedsReplay: --seed runs every server under that one seed and draws
// none, and replays what the seed drew: the mutant passed under seed 2
// passes again, and is caught under seed 3.
func TestSeedsReplay(t *testing.T) {
	t.Parallel()
	_, missed := missedUnder(t, 2)
	for _, tt := range []struct {
		seed uint64
		want Verdict
	}{
		{2, Survived},
		{3, Caught},
	} {
		res, err := Run(context.Background(), Config{
			Mutants: []mutants.Mutant{missed}, Tags: "@CREATE-TAG", Seed: tt.seed,
			drawSeed: func() uint64 { t.Error("a replay drew a seed"); return 1 },
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if !slices.Equal(res.Seeds, []uint64{tt.seed}) || res.Reference[0].Seed != tt.seed || res.Rows[0].Trials[0].Seed != tt.seed {
			t.Errorf("--seed %d: seeds %v, the reference's %d, the mutant's %d", tt.seed, res.Seeds, res.Reference[0].Seed, res.Rows[0].Trials[0].Seed)
		}
		if got := res.Rows[0].Verdict(); got != tt.want {
			t.Errorf("--seed %d: %s, want %s", tt.seed, got, tt.want)
		}
	}
}
