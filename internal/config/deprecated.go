package config

import (
	"flag"
	"strings"
)

// Old names of flags, kept for one release so that scripts keep working:
// each is defined beside its new name, shares its value, and says the new
// name (Deprecated) when given. The shared names, one meaning each in every
// command: --report-dir the folder a command writes into, --format the
// shape of what it prints on standard output, --verbose more of it,
// --concurrency how much runs at once.

// deprecatedPrefix begins the usage of every deprecated flag: its help
// says the new name, and Deprecated reads it back.
const deprecatedPrefix = "deprecated: use "

// alias defines old on fs as a deprecated name of the flag new, already
// defined: the two share one value.
func alias(fs *flag.FlagSet, old, new string) {
	fs.Var(fs.Lookup(new).Value, old, deprecatedPrefix+"--"+new)
}

// Deprecated reports whether f is a deprecated name and, if so, what to
// use instead ("--report-dir", "--format json").
func Deprecated(f *flag.Flag) (use string, ok bool) {
	return strings.CutPrefix(f.Usage, deprecatedPrefix)
}

// setTo is a boolean flag that, given, sets a string flag to one value:
// rules --json, the old name of --format json.
type setTo struct {
	target *string
	value  string
}

func (s setTo) String() string   { return "false" }
func (s setTo) IsBoolFlag() bool { return true }
func (s setTo) Set(v string) error {
	if v == "true" {
		*s.target = s.value
	}
	return nil
}
