package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/spec"
)

func cmdSpec(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "spec", "", "Print the OpenAPI 3.1 document of the Plant Store API that plantcheck checks\nevery exchange against (embedded in the binary).")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	if _, err := c.stdout.Write(spec.Document()); err != nil {
		return c.failer("spec")("%v", err)
	}
	return exitOK
}

func cmdVersion(_ context.Context, c cli, args []string) int {
	fs := newFlagSet(c, "version", "", "Print plantcheck's version and the version of the spec it certifies against.")
	if code, ok := parse(c, fs, args); !ok {
		return code
	}
	v, err := spec.Default()
	if err != nil {
		return c.failer("version")("%v", err)
	}
	fmt.Fprintf(c.stdout, "plantcheck %s\n%s %s (OpenAPI 3.1.0)\n", buildinfo.Version(), v.Info().Title, v.Info().Version)
	return exitOK
}
