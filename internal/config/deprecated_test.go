package config

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/internal/buildinfo"
)

// TestDue: an alias is due in the release that removes it and every one
// after, pre-releases of it included; never before, never in a build
// that is no release.
func TestDue(t *testing.T) {
	t.Parallel()
	a := Alias{Command: "docs", Old: "out", New: "report-dir", Removed: "v2.0.0"}
	tests := []struct {
		version string
		want    bool
	}{
		{"v1.9.9", false},
		{"v1.10.0", false},
		{"v2.0.0", true},
		{"v2.0.0-rc.1", true},
		{"v2.0.1", true},
		{"v2.1.0", true},
		{"v10.0.0", true},
		{"devel", false},
		{"devel 0123456789ab+dirty", false},
		{"v2", false},
		{"v2.0.x", false},
		{"2.0.0", false},
		{"v02.0.0", false},
	}
	for _, tt := range tests {
		if got := a.Due(tt.version); got != tt.want {
			t.Errorf("Due(%q) = %v, want %v", tt.version, got, tt.want)
		}
	}
}

// TestAliasesTable: every row says when it goes, in a version a release
// is tagged with; no command has two rows of one name; a row's old name
// works and says so.
func TestAliasesTable(t *testing.T) {
	t.Parallel()
	seen := map[[2]string]bool{}
	for _, a := range Aliases {
		if _, ok := release(a.Removed); !ok {
			t.Errorf("%s --%s: removed in %q, want vMAJOR.MINOR.PATCH", a.Command, a.Old, a.Removed)
		}
		key := [2]string{a.Command, a.Old}
		if seen[key] {
			t.Errorf("%s --%s: two rows", a.Command, a.Old)
		}
		seen[key] = true
	}
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r := Define[Rules](fs, "rules")
	if err := fs.Parse([]string{"--json", "-v"}); err != nil {
		t.Fatal(err)
	}
	if r.Format != "json" || !r.Verbose {
		t.Errorf("rules --json -v: format %q, verbose %v; want json, true", r.Format, r.Verbose)
	}
	for _, name := range []string{"json", "v", "format"} {
		a, ok := Deprecated("rules", fs.Lookup(name))
		if want := name != "format"; ok != want {
			t.Errorf("Deprecated(rules --%s) = %v, want %v", name, ok, want)
		}
		if ok && a.Old != name {
			t.Errorf("Deprecated(rules --%s) gives the row of --%s", name, a.Old)
		}
	}
}

// TestNoAliasPastItsRelease: a release carries no deprecated name its
// removal is due in. The version is this build's, or, in the release
// workflow (a tag pushed), the tag's: remove the row, its flag and its
// line of docs/usage.md before tagging that release. A build that is no
// release checks nothing here; TestDue proves the comparison.
func TestNoAliasPastItsRelease(t *testing.T) {
	t.Parallel()
	version := buildinfo.Version()
	if os.Getenv("GITHUB_REF_TYPE") == "tag" {
		version = os.Getenv("GITHUB_REF_NAME")
	}
	for _, a := range Aliases {
		if a.Due(version) {
			t.Errorf("plantcheck %s --%s (use %s) is removed in %s, and this is %s: remove it", a.Command, a.Old, a.Use(), a.Removed, version)
		}
	}
}

// Due reports whether the release version (vMAJOR.MINOR.PATCH, a
// pre-release of it too) is at or past the one that removes a: a release
// that still carries a is late. Any other version (devel) is never due.
func (a Alias) Due(version string) bool {
	v, ok := release(version)
	r, ok2 := release(a.Removed)
	return ok && ok2 && slices.Compare(v[:], r[:]) >= 0
}

// release reads vMAJOR.MINOR.PATCH at the start of version (a pre-release
// or build suffix ignored).
func release(version string) (v [3]int, ok bool) {
	if i := strings.IndexAny(version, "-+ "); i >= 0 {
		version = version[:i]
	}
	_, err := fmt.Sscanf(version, "v%d.%d.%d", &v[0], &v[1], &v[2])
	return v, err == nil && fmt.Sprintf("v%d.%d.%d", v[0], v[1], v[2]) == version
}
