// Command plantcheck certifies implementations of the Plant Store API.
//
// 'plantcheck help' lists its commands (the table commands below).
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
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
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
	lookupEnv      func(string) (string, bool) // nil: set when getenv gives a value
	isTerminal     bool                        // stdout is one
	fs             *flag.FlagSet               // the command's, once parsed
}

// command is one subcommand: its name, a line of help, its usage (a
// synopsis and a description), and define, which defines its flags on a
// flag set and returns its body (with, below). args: the command takes
// arguments beside its flags (else one given is refused).
type command struct {
	name, summary, synopsis, description string
	define                               func(name string, fs *flag.FlagSet) body
	args                                 bool
}

// body runs a command once its flags are parsed, on the arguments that are
// not flags, and returns the exit status.
type body func(ctx context.Context, c cli, args []string) int

// with is the define of a command whose settings are a T: its flags are
// config.Settings' rows of the command, and run is given what they fill.
func with[T any](run func(context.Context, cli, *T, []string) int) func(string, *flag.FlagSet) body {
	return func(name string, fs *flag.FlagSet) body {
		cfg := config.Define[T](fs, name)
		return func(ctx context.Context, c cli, args []string) int { return run(ctx, c, cfg, args) }
	}
}

// noFlags is the define of a command without flags.
func noFlags(run body) func(string, *flag.FlagSet) body {
	return func(string, *flag.FlagSet) body { return run }
}

// run parses args into the command's flags and runs its body.
func (cmd command) run(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, cmd.name, cmd.synopsis, cmd.description)
	run := cmd.define(cmd.name, fs)
	args, code, ok := parseArgs(c, fs, args)
	if !ok {
		return code
	}
	if len(args) > 0 && !cmd.args {
		hint := flagsHint(fs)
		for _, name := range []string{"base-url", "upstream"} { // a URL where a flag takes one
			if strings.Contains(args[0], "://") && fs.Lookup(name) != nil {
				hint = fmt.Sprintf("did you mean --%s %s?", name, args[0])
				break
			}
		}
		fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n%s\n", fs.Name(), evidence.Text(args[0]), hint)
		return exitCannotRun
	}
	c.fs = fs
	return run(ctx, c, args)
}

var commands = []command{
	{"run", "certify a Plant Store implementation (the bundled reference server when none is named)", "[flags]", runHelp, with(cmdRun), false},
	{"serve", "serve the bundled reference Plant Store server", "[flags]", serveHelp, with(cmdServe), false},
	{"proxy", "certify a deployment (and its clients) from the traffic that passes through", "--upstream URL [flags]", proxyHelp, with(cmdProxy), false},
	{"judge", "certify a deployment (and its clients) from recorded traffic: HAR files", "[flags] FILE.har...", judgeHelp, with(cmdJudge), true},
	{"merge", "combine the summary.json files of several proxies (one per instance) into one verdict", "[flags] SUMMARY.JSON...", mergeHelp, with(cmdMerge), true},
	{"diff", "what changed between two verdicts (summary.json): newly failing, fixed, still failing; exit 1 on regressions", "[flags] OLD.json NEW.json", diffHelp, with(cmdDiff), true},
	{"verify", "check offline that a report folder's conformance statement and its reports agree", "DIR [--bundle FILE --trusted-root FILE --certificate-identity ID --certificate-oidc-issuer ISSUER]", verifyHelp, with(cmdVerify), true},
	{"compare", "one table of rules by implementations from their summary.json files (HTML, Markdown, JSON, badges)", "[flags] [NAME=]SUMMARY.JSON...", compareHelp, with(cmdCompare), true},
	{"docs", "render the features as documentation of the API (Markdown and HTML)", "--report-dir DIR", docsHelp, with(cmdDocs), false},
	{"rules", "print the catalog of the spec's rules and the scenarios that encode them", "[flags]", rulesHelp, with(cmdRules), false},
	{"selftest", "prove the suite: the reference must pass and every mutant fail", "[flags]", selftestHelp, with(cmdSelftest), false},
	{"spec", "print the OpenAPI 3.1 document the suite checks against", "", "Print the OpenAPI 3.1 document of the Plant Store API that plantcheck checks\nevery exchange against (embedded in the binary).", noFlags(cmdSpec), false},
	{"version", "print plantcheck's version and the spec's", "", "Print plantcheck's version and the version of the spec it certifies against.", noFlags(cmdVersion), false},
	{"split-args", "split a line of arguments as a shell splits words, expanding nothing (the GitHub Action's args)", "< LINE", splitArgsHelp, noFlags(cmdSplitArgs), false},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal stops the run, which still reports; a second
		// one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	fi, err := os.Stdout.Stat()
	terminal := err == nil && fi.Mode()&os.ModeCharDevice != 0
	code := dispatch(ctx, cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, lookupEnv: os.LookupEnv, isTerminal: terminal}, os.Args[1:])
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
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, names := lookup(args[0])
	if cmd != nil {
		return cmd.run(ctx, c, args[1:])
	}
	fmt.Fprintf(c.stderr, "plantcheck: unknown command %q\n", evidence.Text(args[0]))
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	config.Define[config.RunFlags](fs, "run")
	switch name, s := flagArg(fs, args[0]), config.Suggest(args[0], append([]string{"--version"}, names...)); {
	case strings.Contains(args[0], "://"):
		fmt.Fprintf(c.stderr, "did you mean plantcheck run --base-url %s?\n", evidence.Text(args[0]))
	case name != "":
		// The command left out: plantcheck --base-url URL. Only the flag is
		// echoed; its value may be a token.
		fmt.Fprintf(c.stderr, "did you mean plantcheck run %s ...? The command comes first.\n", typed(args[:1], name))
	case args[0] == "-v" || args[0] == "-V":
		// -v alone is read as a wish for the version (a command's -v is --verbose).
		fmt.Fprintln(c.stderr, "did you mean --version?")
	case s != "":
		fmt.Fprintf(c.stderr, "did you mean %s?\n", s)
	}
	fmt.Fprintln(c.stderr, "Run 'plantcheck help' for the commands.")
	return exitCannotRun
}

// lookup returns the command of that name, else nil and the names of all.
func lookup(name string) (*command, []string) {
	var names []string
	for i, cmd := range commands {
		if cmd.name == name {
			return &commands[i], nil
		}
		names = append(names, cmd.name)
	}
	return nil, names
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
	cmd, names := lookup(name)
	if cmd != nil {
		// -h prints the usage where a usage error goes, stderr; help
		// asked for by name is the output.
		c.stderr = c.stdout
		return cmd.run(ctx, c, []string{"-h"})
	}
	fmt.Fprintf(c.stderr, "plantcheck help: unknown command %q\n", evidence.Text(args[0]))
	if s := config.Suggest(name, names); s != "" {
		fmt.Fprintf(c.stderr, "did you mean plantcheck help %s?\n", s)
	}
	fmt.Fprintln(c.stderr, "Run 'plantcheck help' for the commands.")
	return exitCannotRun
}

func (c cli) env() config.Env {
	return config.Env{Getenv: c.getenv, Lookup: c.lookupEnv, IsTerminal: c.isTerminal}
}

// fail is what a command calls when it cannot run: it says why on stderr,
// after the command's name, and returns exit 2.
func (c cli) fail(format string, a ...any) int {
	fmt.Fprintf(c.stderr, c.fs.Name()+": "+format+"\n", a...)
	return exitCannotRun
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
