// Command printversion prints buildinfo.Version: the tests build it as a
// release, `go install` and a clone build it, at a fraction of what
// building plantcheck costs.
package main

import (
	"fmt"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
)

func main() { fmt.Println(buildinfo.Version()) }
