package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/plantcheck/plantcheck/internal/shell"
)

// maxArgsLine bounds the line split-args reads: arguments, not a document.
const maxArgsLine = 64 << 10

const splitArgsHelp = "Read a line of arguments on standard input and write each argument followed by a\n" +
	"NUL byte, split as a POSIX shell splits words: blanks and line breaks separate,\n" +
	"single and double quotes and backslashes are honoured. Nothing is expanded or\n" +
	"run: $VAR, $(...), backticks, globs and ~ are passed as written. The GitHub\n" +
	"Action reads its args input with it (bash: while IFS= read -r -d '' a; ...).\n\n" +
	"Exit status: 0, or 2 when the line does not split (a quote never closed)."

func cmdSplitArgs(_ context.Context, c cli, _ []string) int {
	in := c.stdin
	if in == nil {
		in = strings.NewReader("")
	}
	line, err := io.ReadAll(io.LimitReader(in, maxArgsLine+1))
	switch {
	case err != nil:
		return c.fail("read the line: %v", err)
	case len(line) > maxArgsLine:
		return c.fail("the line is longer than %d bytes", maxArgsLine)
	}
	words, err := shell.Split(string(line))
	if errors.Is(err, shell.ErrSplit) {
		return c.fail("%v", err)
	}
	for _, w := range words {
		if _, err := io.WriteString(c.stdout, w+"\x00"); err != nil {
			return c.fail("%v", err)
		}
	}
	return exitOK
}
