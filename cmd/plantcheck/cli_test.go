package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/config"
)

// usageFile is the page whose table of every command's flags
// TestUsageTable holds to the flag sets.
const usageFile = "../../docs/usage.md"

// The markers around the generated table in usageFile.
const (
	tableBegin = "<!-- flags: generated from the commands' flag sets; PLANTCHECK_UPDATE_DOCS=1 go test -run TestUsageTable ./cmd/plantcheck/ -->"
	tableEnd   = "<!-- end of flags -->"
)

// sharedNames are the names the commands share, each with the names a
// command may not give its own flag of that meaning, unless as a
// deprecated alias of the shared one.
var sharedNames = map[string][]string{
	"report-dir":  {"out", "output", "dir", "out-dir", "output-dir"},
	"format":      {"json", "markdown", "output-format"},
	"verbose":     {"v"},
	"concurrency": {"parallel", "jobs", "j", "workers"},
}

// commandFlagSets returns each command's flag set, as the command makes it
// when asked for help.
func commandFlagSets(t *testing.T) map[string]*flag.FlagSet {
	t.Helper()
	sets := map[string]*flag.FlagSet{}
	for _, cmd := range commands {
		c := cli{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
		if code := cmd.run(t.Context(), c, []string{"-h"}); code != exitOK {
			t.Fatalf("plantcheck %s -h: exit %d, want 0", cmd.name, code)
		}
		fs := newFlagSet(c, cmd.name, cmd.synopsis, cmd.description)
		cmd.define(cmd.name, fs)
		sets[cmd.name] = fs
	}
	return sets
}

// flagTable is the Markdown table of every command's flags, and the
// variables config.Settings reads for them.
func flagTable(sets map[string]*flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("| Command | Flags | Environment | Deprecated (each works until the release that removes it) |\n|---|---|---|---|\n")
	for _, cmd := range commands {
		var flags, env, old []string
		sets[cmd.name].VisitAll(func(f *flag.Flag) {
			if a, ok := config.Deprecated(cmd.name, f); ok {
				old = append(old, fmt.Sprintf("`%s`: use `%s`, removed in %s", dashed(f.Name), a.Use(), a.Removed))
				return
			}
			flags = append(flags, "`"+dashed(f.Name)+"`")
		})
		for _, s := range config.Settings {
			if s.Env != "" && s.Takes(cmd.name) {
				env = append(env, fmt.Sprintf("`%s` for `%s`", s.Env, dashed(s.Name)))
			}
		}
		if len(flags) == 0 {
			flags = []string{"none"}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", cmd.name, strings.Join(flags, ", "), strings.Join(env, ", "), strings.Join(old, ", "))
	}
	return b.String()
}

// TestEverySettingDefined: each row of config.Settings is a flag of every
// command it names, with its usage, and no two rows give one command the
// same flag.
func TestEverySettingDefined(t *testing.T) {
	t.Parallel()
	sets := commandFlagSets(t)
	seen := map[[2]string]bool{}
	for _, s := range config.Settings {
		if len(strings.Fields(s.Commands)) == 0 {
			t.Errorf("--%s: no command takes it", s.Name)
		}
		for _, name := range strings.Fields(s.Commands) {
			key := [2]string{name, s.Name}
			if seen[key] {
				t.Errorf("plantcheck %s --%s: two rows", name, s.Name)
			}
			seen[key] = true
			if sets[name] == nil {
				t.Errorf("--%s names command %q, which plantcheck lacks", s.Name, name)
				continue
			}
			if f := sets[name].Lookup(s.Name); f == nil || !strings.HasPrefix(f.Usage, s.Usage) {
				t.Errorf("plantcheck %s --%s: not defined from its row", name, s.Name)
			}
		}
	}
}

// TestUsageTable holds docs/usage.md's table of flags to the commands'
// flag sets; PLANTCHECK_UPDATE_DOCS=1 rewrites it.
func TestUsageTable(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(usageFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok := strings.Cut(doc, tableBegin+"\n")
	table, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok || !ok2 {
		t.Fatalf("%s has no table between %q and %q", usageFile, tableBegin, tableEnd)
	}
	want := flagTable(commandFlagSets(t))
	if table == want {
		return
	}
	if os.Getenv("PLANTCHECK_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(usageFile, []byte(before+tableBegin+"\n"+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/usage.md's table of flags is out of date: run\n  PLANTCHECK_UPDATE_DOCS=1 go test -run TestUsageTable ./cmd/plantcheck/\nwant:\n%s\ngot:\n%s", want, table)
}

// TestSharedNames holds every command to the shared names: a flag of one
// of their meanings has the shared name, any other name of it is a
// deprecated alias.
func TestSharedNames(t *testing.T) {
	t.Parallel()
	for name, fs := range commandFlagSets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fs.VisitAll(func(f *flag.Flag) {
				a, deprecated := config.Deprecated(name, f)
				for shared, others := range sharedNames {
					for _, o := range others {
						if f.Name != o {
							continue
						}
						if !deprecated || a.New != shared {
							t.Errorf("plantcheck %s --%s: the shared name is --%s (%q)", name, f.Name, shared, f.Usage)
						}
					}
				}
				if deprecated && fs.Lookup(a.New) == nil {
					t.Errorf("plantcheck %s --%s: deprecated for %s, which it lacks", name, f.Name, a.Use())
				}
			})
		})
	}
}

// TestEveryAliasDefined: each row of config.Aliases is a flag of its
// command, and works: it sets the flag it names.
func TestEveryAliasDefined(t *testing.T) {
	t.Parallel()
	sets := commandFlagSets(t)
	for _, a := range config.Aliases {
		fs := sets[a.Command]
		if fs == nil {
			t.Errorf("config.Aliases names command %q, which plantcheck lacks", a.Command)
			continue
		}
		f := fs.Lookup(a.Old)
		if f == nil {
			t.Errorf("plantcheck %s has no flag --%s (config.Aliases)", a.Command, a.Old)
			continue
		}
		if got, ok := config.Deprecated(a.Command, f); !ok || got != a {
			t.Errorf("plantcheck %s --%s: Deprecated gives %+v, %v; want %+v", a.Command, a.Old, got, ok, a)
		}
	}
}

// TestUsageErrorExit2: every command refuses a flag it lacks and an
// argument where its flags want one with exit 2, the error and a hint,
// and answers -h with exit 0.
func TestUsageErrorExit2(t *testing.T) {
	t.Parallel()
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := invoke(t, nil, cmd.name, "--no-such-flag")
			if code != exitCannotRun {
				t.Errorf("plantcheck %s --no-such-flag: exit %d, want 2\n%s", cmd.name, code, stderr)
			}
			if want := "flag provided but not defined: --no-such-flag\n"; !strings.Contains(stderr, want) {
				t.Errorf("plantcheck %s --no-such-flag: stderr %q, want %q", cmd.name, stderr, want)
			}
			if want := "Run 'plantcheck " + cmd.name + " -h' for its flags."; !strings.Contains(stderr, want) {
				t.Errorf("plantcheck %s --no-such-flag: stderr %q, want %q", cmd.name, stderr, want)
			}
		})
	}
}

// dashed is a flag's name as the docs write it: -v, --report-dir.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
