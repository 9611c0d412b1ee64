package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/reference"
)

func cmdRun(ctx context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "run", "[flags]",
		"Certify a Plant Store implementation: run every rule of the spec against it and\n"+
			"print the verdict. With no --base-url, certify the bundled reference server,\n"+
			"started in-process on a loopback port with a random token.\n\n"+
			"Exit status: 0 conformant, 1 non-conformant, 2 could not run.")
	flags := config.DefineRun(fs)
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	cfg, warnings, err := flags.Resolve(c.env())
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck run: %v\n", err)
		if errors.Is(err, config.ErrConfig) {
			fmt.Fprintln(c.stderr, "Run 'plantcheck run -h' for the flags.")
		}
		return exitCannotRun
	}
	for _, w := range warnings {
		fmt.Fprintf(c.stderr, "plantcheck run: %s\n", w)
	}
	if cfg.Reference {
		url, token, stop, err := reference.StartLoopback()
		if err != nil {
			fmt.Fprintf(c.stderr, "plantcheck run: start the reference server: %v\n", err)
			return exitCannotRun
		}
		defer stop()
		cfg.BaseURL, cfg.Token = url, token
	}
	rep, err := run.Run(ctx, run.Config(cfg), run.Options{Output: c.stdout, Getenv: c.getenv})
	if rep != nil {
		rep.WriteVerdict(c.stdout)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "plantcheck run: %v\n", err)
		if errors.Is(err, run.ErrConfig) {
			fmt.Fprintln(c.stderr, "Run 'plantcheck run -h' for the flags.")
		}
		return exitCannotRun
	}
	return rep.ExitCode()
}
