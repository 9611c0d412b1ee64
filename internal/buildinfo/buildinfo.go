// Package buildinfo says which plantcheck this is.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// version is set at link time by a release build:
//
//	go build -ldflags "-X github.com/plantcheck/plantcheck/internal/buildinfo.version=v1.2.3"
var version string

// Version is plantcheck's version: the one set at link time, else the
// module's version when built with `go install ...@version`, else "devel"
// with the VCS revision when the build recorded one.
var Version = sync.OnceValue(func() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	v := "devel"
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			v += " " + s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			v += "+dirty"
		}
	}
	return v
})
