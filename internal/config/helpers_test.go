package config

import (
	"flag"
	"io"
)

// cli and newFlagSet stand in for the command's own, which the file's
// tests were written against.
type cli struct{ stderr io.Writer }

func newFlagSet(c cli, name, _, _ string) *flag.FlagSet {
	fs := flag.NewFlagSet("plantcheck "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	return fs
}
