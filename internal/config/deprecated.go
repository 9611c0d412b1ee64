package config

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// Old names of flags, kept until a release removes them so that scripts
// keep working: each is defined beside its new name, shares its value,
// and says the new name and the release that removes it when given
// (Deprecated). The shared names, one meaning each in every command:
// --report-dir the folder a command writes into, --format the shape of
// what it prints on standard output, --verbose more of it, --concurrency
// how much runs at once.

// Alias is a deprecated name of a command's flag.
type Alias struct {
	// Command is the command whose flag it is; Old the deprecated name,
	// New the flag to use instead (names without dashes).
	Command, Old, New string
	// Value, when set, makes Old a boolean flag that sets New to Value
	// (rules --json: --format json).
	Value string
	// Removed is the release that removes Old (vMAJOR.MINOR.PATCH): a
	// flag's name goes in a major release.
	Removed string
}

// Aliases are every deprecated name of a flag: the one table that defines
// them (each command's Define function reads its rows), its usage and its
// warning say what to use and when it goes, and docs/usage.md lists them.
var Aliases = []Alias{
	{Command: "compare", Old: "out", New: "report-dir", Removed: "v2.0.0"},
	{Command: "docs", Old: "out", New: "report-dir", Removed: "v2.0.0"},
	{Command: "rules", Old: "json", New: "format", Value: "json", Removed: "v2.0.0"},
	{Command: "rules", Old: "v", New: "verbose", Removed: "v2.0.0"},
	{Command: "selftest", Old: "parallel", New: "concurrency", Removed: "v2.0.0"},
}

// Use is what to type instead: "--report-dir", "--format json".
func (a Alias) Use() string {
	if a.Value != "" {
		return "--" + a.New + " " + a.Value
	}
	return "--" + a.New
}

// Due reports whether the release version (vMAJOR.MINOR.PATCH, a
// pre-release of it too) is at or past the one that removes a: a release
// that still carries a is late. Any other version (devel) is never due.
func (a Alias) Due(version string) bool {
	v, ok := release(version)
	r, ok2 := release(a.Removed)
	if !ok || !ok2 {
		return false
	}
	for i := range v {
		if v[i] != r[i] {
			return v[i] > r[i]
		}
	}
	return true
}

// release reads vMAJOR.MINOR.PATCH at the start of version (a pre-release
// or build suffix ignored).
func release(version string) ([3]int, bool) {
	var out [3]int
	rest, ok := strings.CutPrefix(version, "v")
	if !ok {
		return out, false
	}
	if i := strings.IndexAny(rest, "-+ "); i >= 0 {
		rest = rest[:i]
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// usage is the help of a's flag: what to use, and when it goes.
func (a Alias) usage() string {
	return fmt.Sprintf("deprecated: use %s; removed in %s", a.Use(), a.Removed)
}

// defineAliases defines on fs, whose flags are defined, the deprecated
// names of command's flags: each shares its flag's value (and so its type
// in the help).
func defineAliases(fs *flag.FlagSet, command string) {
	for _, a := range Aliases {
		if a.Command != command {
			continue
		}
		v := fs.Lookup(a.New).Value
		if a.Value != "" {
			v = setTo{v, a.Value}
		}
		fs.Var(v, a.Old, a.usage())
	}
}

// Deprecated reports whether f, a flag of command, is a deprecated name
// and, if so, its row of Aliases.
func Deprecated(command string, f *flag.Flag) (Alias, bool) {
	for _, a := range Aliases {
		if a.Command == command && a.Old == f.Name && a.usage() == f.Usage {
			return a, true
		}
	}
	return Alias{}, false
}

// setTo is a boolean flag that, given, sets another flag to one value:
// rules --json, the old name of --format json.
type setTo struct {
	target flag.Value
	value  string
}

func (s setTo) String() string   { return "false" }
func (s setTo) IsBoolFlag() bool { return true }
func (s setTo) Set(v string) error {
	if v == "true" {
		return s.target.Set(s.value)
	}
	return nil
}
