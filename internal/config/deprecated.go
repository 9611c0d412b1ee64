package config

import (
	"flag"
	"fmt"
)

// Alias is a deprecated name of a command's flag, kept until the release
// that removes it so that scripts keep working: it shares its new name's
// value and, given, says what to use and when it goes. The shared names
// mean one thing in every command: --report-dir the folder a command
// writes into, --format the shape of what it prints on standard output,
// --verbose more of it, --concurrency how much runs at once.
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

// Aliases are every deprecated name of a flag: Define reads its rows,
// and docs/usage.md lists them.
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

func (a Alias) usage() string {
	return fmt.Sprintf("deprecated: use %s; removed in %s", a.Use(), a.Removed)
}

// defineAliases defines on fs the deprecated names of command's flags,
// each sharing its flag's value (and so its type in the help).
func defineAliases(fs *flag.FlagSet, command string) {
	for _, a := range Aliases {
		if a.Command == command {
			v := fs.Lookup(a.New).Value
			if a.Value != "" {
				v = setTo{v, a.Value}
			}
			fs.Var(v, a.Old, a.usage())
		}
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

// setTo is a boolean flag that, given, sets another flag to a value.
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
