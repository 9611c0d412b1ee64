// Command plantcheck certifies implementations of the Plant Store API.
//
//	plantcheck run     [flags]   certify a target (the bundled reference server when none is named)
//	plantcheck serve   [flags]   serve the bundled reference server
//	plantcheck proxy   [flags]   certify a deployment from the traffic through it
//	plantcheck judge   FILE...   certify a deployment from recorded traffic (HAR)
//	plantcheck diff    OLD NEW   what changed between two verdicts (summary.json)
//	plantcheck compare FILE...   one table of rules by implementations
//	plantcheck docs    [flags]   render the features as documentation (--report-dir DIR)
//	plantcheck rules   [flags]   print the rule catalog and its scenarios
//	plantcheck selftest [flags]  prove the suite against the reference and its mutants
//	plantcheck spec              print the OpenAPI document the suite checks against
//	plantcheck version           print plantcheck's and the spec's versions
//	plantcheck split-args < LINE split a line into arguments, expanding nothing (for the Action)
//
// Flags go before or after a command's file arguments; the names are
// shared (--report-dir, --format, --verbose, --concurrency), and the old
// ones work, deprecated, until the release each names (config.Aliases;
// docs/usage.md has the table).
//
// Exit status: 0 conformant (or success), 1 non-conformant, 2 the command
// could not run (bad flags or configuration, an unreachable target).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/run"
)

// Exit statuses shared by every command.
const (
	exitOK        = 0
	exitFailed    = 1
	exitCannotRun = 2
)

// cli is what a command may touch of the process: its streams and its
// environment. Tests pass their own.
type cli struct {
	stdin          io.Reader // nil: empty
	stdout, stderr io.Writer
	getenv         func(string) string
	// lookupEnv tells a variable set empty from one unset (nil: a
	// variable is set when getenv gives it a value).
	lookupEnv func(string) (string, bool)
	// isTerminal reports whether stdout is a terminal.
	isTerminal bool
	// flagSet, when set, is given each command's flag set as it is made:
	// the test that writes docs/usage.md's table reads the flags there.
	flagSet func(*flag.FlagSet)
}

// command is one subcommand: its name, a line of help, and its body, which
// parses its own flags and returns the exit status.
type command struct {
	name, summary string
	run           func(ctx context.Context, c cli, args []string) int
}

var commands = []command{
	{"run", "certify a Plant Store implementation (the bundled reference server when none is named)", cmdRun},
	{"serve", "serve the bundled reference Plant Store server", cmdServe},
	{"proxy", "certify a deployment (and its clients) from the traffic that passes through", cmdProxy},
	{"judge", "certify a deployment (and its clients) from recorded traffic: HAR files", cmdJudge},
	{"merge", "combine the summary.json files of several proxies (one per instance) into one verdict", cmdMerge},
	{"diff", "what changed between two verdicts (summary.json): newly failing, fixed, still failing; exit 1 on regressions", cmdDiff},
	{"verify", "check offline that a report folder's conformance statement and its reports agree", cmdVerify},
	{"compare", "one table of rules by implementations from their summary.json files (HTML, Markdown, JSON, badges)", cmdCompare},
	{"docs", "render the features as documentation of the API (Markdown and HTML)", cmdDocs},
	{"rules", "print the catalog of the spec's rules and the scenarios that encode them", cmdRules},
	{"selftest", "prove the suite: the reference must pass and every mutant fail", cmdSelftest},
	{"spec", "print the OpenAPI 3.1 document the suite checks against", cmdSpec},
	{"version", "print plantcheck's version and the spec's", cmdVersion},
	{"split-args", "split a line of arguments as a shell splits words, expanding nothing (the GitHub Action's args)", cmdSplitArgs},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal stops the run, which still reports; a second
		// one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	c := cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, lookupEnv: os.LookupEnv, isTerminal: isTerminal(os.Stdout)}
	code := dispatch(ctx, c, os.Args[1:])
	stop()
	os.Exit(code)
}

// dispatch runs the command args name and returns the exit status.
func dispatch(ctx context.Context, c cli, args []string) int {
	if len(args) == 0 {
		usage(c.stderr)
		return exitCannotRun
	}
	switch args[0] {
	case "help":
		return help(ctx, c, args[1:])
	case "-h", "-help", "--help":
		usage(c.stdout)
		return exitOK
	case "-version", "--version":
		return cmdVersion(ctx, c, args[1:])
	}
	names := []string{"--version"}
	for _, cmd := range commands {
		if cmd.name == args[0] {
			return cmd.run(ctx, c, args[1:])
		}
		names = append(names, cmd.name)
	}
	fmt.Fprintf(c.stderr, "plantcheck: unknown command %q\n", evidence.Text(args[0]))
	switch s := config.Suggest(args[0], names); {
	case strings.Contains(args[0], "://"):
		fmt.Fprintf(c.stderr, "did you mean plantcheck run --base-url %s?\n", evidence.Text(args[0]))
	case runFlag(args[0]) != "":
		// The command left out: plantcheck --base-url URL. Only the flag is
		// echoed; its value may be a token.
		fmt.Fprintf(c.stderr, "did you mean plantcheck run %s ...? The command comes first.\n", typed(args[:1], runFlag(args[0])))
	case args[0] == "-v" || args[0] == "-V":
		// -v alone is read as a wish for the version (a command's -v is --verbose).
		fmt.Fprintln(c.stderr, "did you mean --version?")
	case s != "":
		fmt.Fprintf(c.stderr, "did you mean %s?\n", s)
	}
	fmt.Fprintln(c.stderr, "Run 'plantcheck help' for the commands.")
	return exitCannotRun
}

// help prints the usage of the command args names, as its -h does but on
// stdout, or with no name the general usage; a name that is no command is
// exit 2 with a did-you-mean.
func help(ctx context.Context, c cli, args []string) int {
	if len(args) == 0 || args[0] == "help" {
		usage(c.stdout)
		return exitOK
	}
	if len(args) > 1 {
		fmt.Fprintf(c.stderr, "plantcheck help: unexpected argument %q\nRun 'plantcheck help' for the commands.\n", evidence.Text(args[1]))
		return exitCannotRun
	}
	name := strings.TrimLeft(args[0], "-")
	var names []string
	for _, cmd := range commands {
		if cmd.name == name {
			// -h prints the usage where a usage error goes, stderr; help
			// asked for by name is the output.
			c.stderr = c.stdout
			return cmd.run(ctx, c, []string{"-h"})
		}
		names = append(names, cmd.name)
	}
	fmt.Fprintf(c.stderr, "plantcheck help: unknown command %q\n", evidence.Text(args[0]))
	if s := config.Suggest(name, names); s != "" {
		fmt.Fprintf(c.stderr, "did you mean plantcheck help %s?\n", s)
	}
	fmt.Fprintln(c.stderr, "Run 'plantcheck help' for the commands.")
	return exitCannotRun
}

// runFlag returns the name of run's flag that arg is, "" when it is none.
func runFlag(arg string) string {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	config.DefineRun(fs)
	return flagArg(fs, arg)
}

// env is what the configuration reads of c.
func (c cli) env() config.Env {
	return config.Env{Getenv: c.getenv, Lookup: c.lookupEnv, IsTerminal: c.isTerminal}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "plantcheck certifies implementations of the Plant Store API.")
	fmt.Fprintln(w, "\nUsage:\n  plantcheck <command> [flags]\n\nCommands:")
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprintln(w, "\nRun 'plantcheck help <command>' (or 'plantcheck <command> -h') for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 conformant, 1 non-conformant, 2 could not run.")
}

// newFlagSet returns a flag set for command name whose errors and help go
// to c.stderr, with a usage line and description.
func newFlagSet(c cli, name, synopsis, description string) *flag.FlagSet {
	fs := flag.NewFlagSet("plantcheck "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: plantcheck %s %s\n\n%s\n\nFlags:\n", name, synopsis, description)
		fs.PrintDefaults()
	}
	if c.flagSet != nil {
		c.flagSet(fs)
	}
	return fs
}

// parse parses args into fs. It returns the exit status to end with, and
// false, when the command must not go on: help asked (0), a bad flag or a
// stray argument (2).
func parse(c cli, fs *flag.FlagSet, args []string) (int, bool) {
	pos, code, ok := parseArgs(c, fs, args)
	if !ok {
		return code, false
	}
	if len(pos) > 0 {
		hint := flagsHint(fs)
		if h := argumentHint(fs, pos[0]); h != "" {
			hint = h
		}
		fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n%s\n", fs.Name(), evidence.Text(pos[0]), hint)
		return exitCannotRun, false
	}
	return 0, true
}

// parseArgs parses the flags of args into fs and returns the arguments
// that are not flags, in order: a flag is read before, between or after
// them (judge --report-dir r run.har, judge run.har --report-dir r), and
// after "--" every word is an argument. Help asked prints the whole usage
// (0); a bad flag prints the error, as it was typed, and a one-line hint,
// not the usage, which would bury it (2). A deprecated flag still works,
// and says its new name on stderr.
func parseArgs(c cli, fs *flag.FlagSet, args []string) ([]string, int, bool) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	var why string
	restore := guard(fs, &why)
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
	restore()
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case err == nil:
		warnDeprecated(c, fs, args)
		return pos, 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return nil, exitOK, false
	case why != "":
		fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), why, flagsHint(fs))
		return nil, exitCannotRun, false
	}
	if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: "); ok {
		fmt.Fprintf(c.stderr, "%s: %s needs a value\n%s\n", fs.Name(), typed(args, strings.TrimLeft(name, "-")), flagsHint(fs))
		return nil, exitCannotRun, false
	}
	hint := flagsHint(fs)
	msg := err.Error()
	if name := undefinedFlag(err); name != "" {
		msg = "flag provided but not defined: " + typed(args, name)
		if s := config.Suggest(name, flagNames(fs)); s != "" {
			hint = "did you mean --" + s + "? " + hint
		}
	} else if name := invalidValueFlag(err); name != "" {
		msg = strings.Replace(msg, "-"+name+":", typed(args, name)+":", 1)
	}
	fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), evidence.Text(msg), hint)
	return nil, exitCannotRun, false
}

// flagsHint is the line that follows a usage error.
func flagsHint(fs *flag.FlagSet) string {
	return "Run '" + fs.Name() + " -h' for its flags."
}

// tuneGC sets the collector's target for a command that runs the suite
// many times over (run.GCPercent); GOGC, when set, wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(run.GCPercent)
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
