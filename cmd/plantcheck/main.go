// Command plantcheck certifies implementations of the Plant Store API.
//
//	plantcheck run     [flags]   certify a target (the bundled reference server when none is named)
//	plantcheck serve   [flags]   serve the bundled reference server
//	plantcheck proxy   [flags]   certify a deployment from the traffic through it
//	plantcheck judge   FILE...   certify a deployment from recorded traffic (HAR)
//	plantcheck diff    OLD NEW   what changed between two verdicts (summary.json)
//	plantcheck compare FILE...   one table of rules by implementations
//	plantcheck docs    --out DIR render the features as documentation
//	plantcheck rules   [flags]   print the rule catalog and its scenarios
//	plantcheck selftest [flags]  prove the suite against the reference and its mutants
//	plantcheck spec              print the OpenAPI document the suite checks against
//	plantcheck version           print plantcheck's and the spec's versions
//	plantcheck split-args < LINE split a line into arguments, expanding nothing (for the Action)
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
	case "help", "-h", "-help", "--help":
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
	case args[0] == "-v" || args[0] == "-V":
		// -v is verbose where a command has it (rules -v).
		fmt.Fprintln(c.stderr, "did you mean --version?")
	case s != "":
		fmt.Fprintf(c.stderr, "did you mean %s?\n", s)
	}
	fmt.Fprintln(c.stderr)
	usage(c.stderr)
	return exitCannotRun
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
	fmt.Fprintln(w, "\nRun 'plantcheck <command> -h' for a command's flags.")
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
	return fs
}

// parse parses args into fs. It returns the exit status to end with, and
// false, when the command must not go on: help asked (0), a bad flag or a
// stray argument (2).
func parse(c cli, fs *flag.FlagSet, args []string) (int, bool) {
	if code, ok := parseFlags(c, fs, args); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		hint := flagsHint(fs)
		if h := argumentHint(fs, fs.Arg(0)); h != "" {
			hint = h
		}
		fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n%s\n", fs.Name(), evidence.Text(fs.Arg(0)), hint)
		return exitCannotRun, false
	}
	return 0, true
}

// parseFlags parses the flags of args into fs, leaving the arguments after
// them. Help asked prints the whole usage (0); a bad flag prints the error
// and a one-line hint, not the usage, which would bury it (2).
func parseFlags(c cli, fs *flag.FlagSet, args []string) (int, bool) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	var why string
	restore := guard(fs, &why)
	err := fs.Parse(args)
	restore()
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, false
	case why != "":
		fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), why, flagsHint(fs))
		return exitCannotRun, false
	}
	if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: "); ok {
		fmt.Fprintf(c.stderr, "%s: --%s needs a value\n%s\n", fs.Name(), strings.TrimLeft(evidence.Text(name), "-"), flagsHint(fs))
		return exitCannotRun, false
	}
	hint := flagsHint(fs)
	if name := undefinedFlag(err); name != "" {
		if s := config.Suggest(name, flagNames(fs)); s != "" {
			hint = "did you mean --" + s + "? " + hint
		}
	}
	fmt.Fprintf(c.stderr, "%s: %s\n%s\n", fs.Name(), evidence.Text(err.Error()), hint)
	return exitCannotRun, false
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
