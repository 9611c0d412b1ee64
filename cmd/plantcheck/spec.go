package main

import (
	"context"
	"fmt"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
	"github.com/plantcheck/plantcheck/spec"
)

func cmdSpec(_ context.Context, c cli, _ []string) int {
	if _, err := c.stdout.Write(spec.Document()); err != nil {
		return c.fail("%v", err)
	}
	return exitOK
}

func cmdVersion(_ context.Context, c cli, _ []string) int {
	v, err := spec.Default()
	if err != nil {
		return c.fail("%v", err)
	}
	fmt.Fprintf(c.stdout, "plantcheck %s\n%s %s (OpenAPI 3.1.0)\n", buildinfo.Version(), v.Info().Title, v.Info().Version)
	return exitOK
}
