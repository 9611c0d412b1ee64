package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/reference"
)

const runHelp = "Certify a Plant Store implementation: run every rule of the spec against it and\n" +
	"print the verdict. With no --base-url, certify the bundled reference server,\n" +
	"started in-process on a loopback port with a random token.\n\n" +
	"Exit status: 0 conformant, 1 non-conformant, 2 could not run."

func cmdRun(ctx context.Context, c cli, flags *config.RunFlags, _ []string) int {
	cfg, warnings, err := flags.Resolve(c.fs, c.env())
	for _, w := range warnings {
		fmt.Fprintf(c.stderr, "plantcheck run: %s\n", w)
	}
	if err == nil && cfg.Reference {
		var stop func()
		if cfg.BaseURL, cfg.Token, stop, err = reference.StartLoopback(); err != nil {
			err = fmt.Errorf("start the reference server: %w", err)
		} else {
			defer stop()
		}
	}
	if err == nil {
		var rep *run.Report
		rep, err = run.Run(ctx, run.Config(cfg), run.Options{Output: c.stdout, Getenv: c.getenv})
		if rep != nil {
			rep.WriteVerdict(c.stdout)
		}
		if err == nil {
			if cfg.BaselineUpdate != "" {
				fmt.Fprintf(c.stderr, "plantcheck run: wrote the baseline this verdict passes with to %s\n", cfg.BaselineUpdate)
			}
			return rep.ExitCode()
		}
	}
	fmt.Fprintf(c.stderr, "plantcheck run: %v\n", err)
	if errors.Is(err, config.ErrConfig) {
		fmt.Fprintln(c.stderr, "Run 'plantcheck run -h' for the flags.")
	}
	return exitCannotRun
}
