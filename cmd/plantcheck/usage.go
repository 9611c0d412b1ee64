package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/run"
)

// newFlagSet returns a flag set for command name whose errors and help go
// to c.stderr.
func newFlagSet(c cli, name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet("plantcheck "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: plantcheck %s %s\n\n%s\n\nFlags:\n", name, synopsis, description)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses the flags of args into fs and returns the arguments
// that are not flags: a flag is read before, between or after them, and
// after "--" every word is an argument. Help asked prints the usage (0); a
// bad flag prints the error, as it was typed, and a one-line hint, not the
// usage, which would bury it (2). A deprecated flag says its new name.
func parseArgs(c cli, fs *flag.FlagSet, args []string) ([]string, int, bool) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	var why string
	own := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		if !config.IsBool(f.Value) {
			own[f], f.Value = f.Value, guarded{f.Value, f.Name, fs, &why}
		}
	})
	var pos []string
	var err error
	for rest := args; ; {
		if err = fs.Parse(rest); err != nil {
			break
		}
		read := rest[:len(rest)-fs.NArg()]
		rest = fs.Args()
		if len(read) > 0 && read[len(read)-1] == "--" && !takesValue(fs, read) {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	for f, v := range own {
		f.Value = v
	}
	fs.Usage = usage
	fs.SetOutput(out)
	hint := flagsHint(fs)
	switch {
	case err == nil:
		fs.Visit(func(f *flag.Flag) {
			if a, ok := config.Deprecated(strings.TrimPrefix(fs.Name(), "plantcheck "), f); ok {
				fmt.Fprintf(c.stderr, "%s is deprecated; use %s (removed in %s)\n", typed(args, f.Name), a.Use(), a.Removed)
			}
		})
		return pos, 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return nil, exitOK, false
	case why != "":
		fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), why, hint)
		return nil, exitCannotRun, false
	}
	if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: "); ok {
		fmt.Fprintf(c.stderr, "%s: %s needs a value\n%s\n", fs.Name(), typed(args, strings.TrimLeft(name, "-")), hint)
		return nil, exitCannotRun, false
	}
	msg := err.Error()
	if name := undefinedFlag(err); name != "" {
		msg = "flag provided but not defined: " + typed(args, name)
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := config.Suggest(name, names); s != "" {
			hint = "did you mean --" + s + "? " + hint
		}
	} else if m := invalidValue.FindStringSubmatch(msg); m != nil {
		msg = strings.Replace(msg, "-"+m[1]+":", typed(args, m[1])+":", 1)
	}
	fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), evidence.Text(msg), hint)
	return nil, exitCannotRun, false
}

// flagsHint is the line that follows a usage error.
func flagsHint(fs *flag.FlagSet) string {
	return "Run '" + fs.Name() + " -h' for its flags."
}

// undefinedFlag returns the name of the flag err says is not defined ("").
// The flag package has no error type for it, nor for invalidValue: its
// message is the only handle, and a test pins it.
func undefinedFlag(err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	return strings.TrimLeft(name, "-")
}

var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value ".*" for (?:flag )?-([^:\s]+):`)

// guarded wraps a flag that takes a value while its flag set parses: it
// refuses another of the set's flags as its value (--report-dir --strict
// is a forgotten value, not a folder named --strict) and, for a duration,
// a bare number (--timeout 10: seconds or milliseconds?). The reason goes
// to *why, which parseArgs prints instead of the flag package's error,
// which quotes the value.
type guarded struct {
	flag.Value
	name string
	fs   *flag.FlagSet
	why  *string
}

func (g guarded) Set(v string) error {
	if flagArg(g.fs, v) != "" {
		typed, _, _ := strings.Cut(v, "=")
		*g.why = fmt.Sprintf("--%s needs a value, and was followed by the flag %s", g.name, typed)
		return errors.New("no value")
	}
	if why := config.Unitless(g.Value, v); why != "" {
		*g.why = fmt.Sprintf("--%s %s", g.name, why)
		return errors.New("no unit")
	}
	return g.Value.Set(v)
}

// flagArg returns the name of fs's flag (or help) that arg is, "" when it
// is none: a negative number or a token that begins with a dash is a value.
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

// typed returns flag name as args typed it (-v, --out; else --name): the
// flag package echoes one dash, and a user who typed two may think the
// dash was the mistake.
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

// takesValue reports whether the last word of read, "--", is the value
// of the flag before it (--tags --), not the end of the flags.
func takesValue(fs *flag.FlagSet, read []string) bool {
	if len(read) < 2 {
		return false
	}
	prev := read[len(read)-2]
	name := flagArg(fs, prev)
	return name != "" && !strings.Contains(prev, "=") && name != "h" && name != "help" && !config.IsBool(fs.Lookup(name).Value)
}

// tuneGC sets the collector's target for a command that runs the suite
// many times over (run.GCPercent); GOGC, when set, wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(run.GCPercent)
	}
}
