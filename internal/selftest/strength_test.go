package selftest

import (
	"errors"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/selftest/mutants"
	"github.com/plantcheck/plantcheck/internal/strength"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// TestStrengthOfAWholeSelftest: only a whole self-test whose reference
// passed and whose every run was made measures the strength; a mutant
// counts as caught only if caught under every seed.
func TestStrengthOfAWholeSelftest(t *testing.T) {
	t.Parallel()
	whole := func(cfg Config) *Result {
		cfg = cfg.withDefaults()
		r := &Result{Seeds: []uint64{1, 2}, Reference: []Trial{{}, {}}, cfg: cfg}
		for i, m := range cfg.Mutants {
			v := Caught
			if i == 1 {
				v = Survived // caught under one seed of two: not caught
			}
			r.Rows = append(r.Rows, Row{Mutant: m, Trials: []Trial{{Verdict: Caught}, {Verdict: v}}})
		}
		return r
	}
	tests := []struct {
		name    string
		res     *Result
		wantErr string
	}{
		{"whole", whole(Config{}), ""},
		{"--tags", whole(Config{Tags: "@AUTH-EMPTY"}), ErrPart.Error()},
		{"--without", whole(Config{Without: []string{"echo"}}), ErrPart.Error()},
		{"--mutant", whole(Config{Mutants: mutants.All[:3]}), ErrPart.Error()},
		{"the reference fails", func() *Result { r := whole(Config{}); r.Reference[1].ExitCode = 1; return r }(), "the reference does not pass"},
		{"a run not made", func() *Result {
			r := whole(Config{})
			r.Rows[2].Trials[0] = Trial{Verdict: Broken, Err: errors.New("no port")}
			return r
		}(), "mutant " + mutants.All[2].Name + ": could not run: no port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := tt.res.Strength("v9.9.9")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Strength: error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.Mutants, len(mutants.All); got != want {
				t.Errorf("mutants %d, want %d", got, want)
			}
			if got, want := f.Caught, len(mutants.All)-1; got != want {
				t.Errorf("caught %d, want %d (one caught under one seed of two)", got, want)
			}
			if f.Each[1].Caught || !f.Each[0].Caught {
				t.Errorf("each: %+v", f.Each[:2])
			}
			if f.Plantcheck != "v9.9.9" || len(f.Suite) != 64 || f.Measured == "" {
				t.Errorf("measured %q by %q on %q", f.Measured, f.Plantcheck, f.Suite)
			}
		})
	}
}

// TestWriteStrength: the strength measured beside the carried figures,
// and the stale line with each difference when they differ.
func TestWriteStrength(t *testing.T) {
	t.Parallel()
	figures := func(caught bool) *strength.Figures {
		f := &strength.Figures{Measured: "2026-11-26", Plantcheck: "v1.4.0", Suite: strings.Repeat("a", 64),
			Each: []strength.Mutant{{Name: "status-201", Rules: []rules.RuleID{rules.Create200}, Caught: caught}}}
		f.Tally()
		return f
	}
	tests := []struct {
		name              string
		measured, carried *strength.Figures
		wantStale         bool
		want              string
	}{
		{"the same", figures(true), figures(true), false,
			"suite strength measured: 1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"suite strength carried:  1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"the carried figures are those measured\n"},
		{"a survivor now", figures(false), figures(true), true,
			"suite strength measured: 0 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"suite strength carried:  1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"the carried figures are stale: run go generate ./internal/strength\n" +
				"  measured 0 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0; carried 1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"  mutant status-201: not caught now, caught in the carried figures\n"},
		{"none carried", figures(true), nil, true,
			"suite strength measured: 1 of 1 mutants caught, selftest of 2026-11-26, plantcheck v1.4.0\n" +
				"suite strength carried: none\nthe carried figures are stale: run go generate ./internal/strength\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if got := WriteStrength(&b, tt.measured, tt.carried); got != tt.wantStale {
				t.Errorf("stale %v, want %v", got, tt.wantStale)
			}
			if b.String() != tt.want {
				t.Errorf("printed:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}
