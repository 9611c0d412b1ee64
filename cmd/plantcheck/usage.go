package main

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/plantcheck/plantcheck/internal/config"
)

// Usage as users type it: a did-you-mean for a mistyped flag, command or
// config key; a hint for a URL given as an argument; a duration without
// its unit, and a flag taken as another's value, refused with the reason.

// flagNames returns the names of fs's flags.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// undefinedFlag returns the name of the flag err says is not defined ("" for
// another error). The flag package has no error type for it: its message
// is the only handle, and a test pins it.
func undefinedFlag(err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	return strings.TrimLeft(name, "-")
}

// guardedValue wraps a flag that takes a value while its flag set parses:
// it refuses another of the set's flags as its value (--report-dir
// --strict is a forgotten value, not a folder named --strict) and, for a
// duration, a bare number (--timeout 10: seconds or milliseconds?). The
// reason goes to *why, which parseFlags prints instead of the flag
// package's error, which quotes the value.
type guardedValue struct {
	flag.Value
	name     string
	fs       *flag.FlagSet
	duration bool
	why      *string
}

func (g guardedValue) Set(v string) error {
	if flagArg(g.fs, v) != "" {
		typed, _, _ := strings.Cut(v, "=")
		*g.why = fmt.Sprintf("--%s needs a value, and was followed by the flag %s", g.name, typed)
		return fmt.Errorf("no value")
	}
	if g.duration {
		if n, err := strconv.ParseFloat(v, 64); err == nil && n != 0 {
			*g.why = fmt.Sprintf("--%s %s: a duration needs its unit, such as %ss or %sms", g.name, v, v, v)
			return fmt.Errorf("no unit")
		}
	}
	return g.Value.Set(v)
}

// flagArg returns the name of fs's flag that arg is (-name, --name or
// --name=value; help too), "" when arg is not one of them: a negative
// number or a token that begins with a dash stays a value.
func flagArg(fs *flag.FlagSet, arg string) string {
	if !strings.HasPrefix(arg, "-") {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	if name == "h" || name == "help" || name != "" && fs.Lookup(name) != nil {
		return name
	}
	return ""
}

// guard wraps each flag of fs that takes a value in a guardedValue, and
// returns the function that puts the flags' own values back.
func guard(fs *flag.FlagSet, why *string) (restore func()) {
	var undo []func()
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		isDuration := false
		if g, ok := f.Value.(flag.Getter); ok {
			_, isDuration = g.Get().(time.Duration)
		}
		orig := f.Value
		f.Value = guardedValue{Value: orig, name: f.Name, fs: fs, duration: isDuration, why: why}
		undo = append(undo, func() { f.Value = orig })
	})
	return func() {
		for _, u := range undo {
			u()
		}
	}
}

// urlFlags are the flags that take a command's target, in the order a hint
// prefers them.
var urlFlags = []string{"base-url", "upstream"}

// argumentHint is the line that follows an unexpected argument: a URL
// where a flag takes one points at that flag.
func argumentHint(fs *flag.FlagSet, arg string) string {
	if !strings.Contains(arg, "://") {
		return ""
	}
	for _, name := range urlFlags {
		if fs.Lookup(name) != nil {
			return fmt.Sprintf("did you mean --%s %s?", name, arg)
		}
	}
	return ""
}

// typed returns flag name as args typed it: -v, --out, -base-url. The
// flag package echoes every flag with one dash; a user who typed two and
// reads one may think the dash was the mistake. "--name" when args has it
// not.
func typed(args []string, name string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		n := strings.TrimLeft(a, "-")
		if n, _, _ = strings.Cut(n, "="); n == name && len(a) > len(n) && a[0] == '-' {
			return a[:len(a)-len(strings.TrimLeft(a, "-"))] + name
		}
	}
	return "--" + name
}

// invalidValueFlag returns the name of the flag err says was given a value
// it cannot take ("" for another error): the flag package's message is the
// only handle, and a test pins it.
func invalidValueFlag(err error) string {
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	return m[1]
}

var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value ".*" for (?:flag )?-([^:\s]+):`)

// takesValue reports whether the last word of read, "--", is the value
// of the flag before it (--tags --), not the end of the flags.
func takesValue(fs *flag.FlagSet, read []string) bool {
	if len(read) < 2 {
		return false
	}
	prev := read[len(read)-2]
	name := flagArg(fs, prev)
	if name == "" || strings.Contains(prev, "=") || name == "h" || name == "help" {
		return false
	}
	b, ok := fs.Lookup(name).Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// warnDeprecated says, one line each on stderr, the new name of every
// deprecated flag args gave (config.Aliases) and the release that
// removes it.
func warnDeprecated(c cli, fs *flag.FlagSet, args []string) {
	fs.Visit(func(f *flag.Flag) {
		if a, ok := config.Deprecated(commandOf(fs), f); ok {
			fmt.Fprintf(c.stderr, "%s is deprecated; use %s (removed in %s)\n", typed(args, f.Name), a.Use(), a.Removed)
		}
	})
}

// commandOf is the command whose flag set fs is (newFlagSet names it).
func commandOf(fs *flag.FlagSet) string {
	return strings.TrimPrefix(fs.Name(), "plantcheck ")
}
