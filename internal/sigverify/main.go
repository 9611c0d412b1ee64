package sigverify

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/history"
)

// Exit statuses, as plantcheck verify's.
const (
	exitOK        = 0
	exitFailed    = 1
	exitCannotRun = 2
)

// Main is plantcheck-verify-bundle, which plantcheck verify --bundle runs:
// args are verify's flags, then the report folder. It checks the folder as
// plantcheck verify does (history.Verify), then the bundle (Check), and
// writes both in verify's words. It lives apart from plantcheck so that
// sigstore-go, which adds to every command's start-up, is loaded only when a
// signature is checked (docs/certifying.md gives the figures).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plantcheck verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	v := config.Define[config.Verify](fs, "verify")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitCannotRun
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "plantcheck verify: give one report folder (%d given)\n", fs.NArg())
		return exitCannotRun
	}
	if err := v.Validate(); err != nil {
		fmt.Fprintf(stderr, "plantcheck verify: %v\n", err)
		return exitCannotRun
	}
	if v.Bundle == "" {
		fmt.Fprintln(stderr, "plantcheck verify: --bundle is required here; plantcheck verify DIR checks a folder without one")
		return exitCannotRun
	}
	dir := fs.Arg(0)
	res, err := history.Verify(dir)
	if err != nil {
		return cannotCheck(stderr, err)
	}
	sig, err := Check(dir, *v)
	if err != nil {
		return cannotCheck(stderr, err)
	}
	// The signature's differences are named and counted with the folder's,
	// in the one last line.
	if sig.Holds() {
		sig.WriteText(stdout)
	}
	res.Differences = append(res.Differences, sig.Differences...)
	res.WriteText(stdout)
	if !res.Holds() {
		return exitFailed
	}
	return exitOK
}

// cannotCheck reports why a statement could not be checked: exit 2.
func cannotCheck(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "plantcheck verify: %s\n", evidence.Text(err.Error()))
	if !errors.Is(err, history.ErrCannotCheck) {
		fmt.Fprintln(stderr, "plantcheck verify: could not check")
	}
	return exitCannotRun
}
