package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// VersionVar is the variable every release build stamps with -ldflags -X:
// .goreleaser.yaml, the Action's build and the Dockerfile name it.
const VersionVar = "github.com/plantcheck/plantcheck/internal/buildinfo.version"

// goBuild builds the printversion program from the module at dir with
// args and the environment's GOFLAGS set to goflags, and returns what it
// prints.
func goBuild(t *testing.T, dir, goflags string, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command("go", append(append([]string{"build", "-trimpath", "-o", out}, args...), "./internal/buildinfo/testdata/printversion")...)
	// GOPROXY=off: the module cache is warm; a test never reaches out.
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS="+goflags, "GOPROXY=off", "GOTOOLCHAIN=local")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, b)
	}
	b, err := exec.Command(out).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, b)
	}
	return strings.TrimSpace(string(b))
}

// TestVersionStamped: a release build's -ldflags -X names a variable that
// exists (the linker ignores one that does not, silently) and its value
// is the version printed, whatever the build recorded of VCS.
func TestVersionStamped(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	tests := []struct {
		name, goflags, ldflags, want string
	}{
		{name: "a release (-X)", goflags: "-buildvcs=false", ldflags: "-s -w -X " + VersionVar + "=v1.2.3", want: "v1.2.3"},
		{name: "the Action's build of a branch", goflags: "-buildvcs=false", ldflags: "-s -w -X " + VersionVar + "=devel-main", want: "devel-main"},
		{name: "no stamp, no VCS", goflags: "-buildvcs=false", ldflags: "-s -w", want: "devel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := goBuild(t, "../..", tt.goflags, "-ldflags="+tt.ldflags); got != tt.want {
				t.Errorf("version %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionFromClone: a `go build` in a clone (buildvcs on, as on a
// user's machine; these machines turn it off) prints the module's
// pseudo-version from the commit; a clone at a release tag prints the
// tag, as `go install ...@v1.2.3` does (both are the module's version in
// debug.ReadBuildInfo); uncommitted changes are marked +dirty.
func TestVersionFromClone(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	clone := filepath.Join(t.TempDir(), "plantcheck")
	git(t, ".", "clone", "--quiet", "--no-checkout", "../..", clone)
	git(t, clone, "checkout", "--quiet", git(t, "../..", "rev-parse", "HEAD"))
	// The program as this tree has it, committed in the clone (HEAD may
	// predate it; an untracked file would mark the build +dirty).
	prog, err := os.ReadFile("testdata/printversion/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(clone, "internal/buildinfo/testdata/printversion"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clone, "internal/buildinfo/testdata/printversion/main.go"), prog, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, clone, "add", "-A")
	git(t, clone, "commit", "--quiet", "--allow-empty", "-m", "printversion") // empty when HEAD has it already (a fresh clone of main)
	// The tag first: the go command remembers a repository's tags between
	// builds (a tag added after a build of the same commit was not seen,
	// even with -a), and a release is tagged before it is built.
	git(t, clone, "tag", "v1.2.3")
	if got, want := goBuild(t, clone, "-buildvcs=true"), "v1.2.3"; got != want {
		t.Errorf("a clone at tag v1.2.3 prints %q, want %q", got, want)
	}
	git(t, clone, "commit", "--quiet", "--allow-empty", "-m", "after the release")
	head := git(t, clone, "rev-parse", "HEAD")
	pseudo := regexp.MustCompile(`^v1\.2\.4-0\.\d{14}-` + head[:12] + `$`)
	if got := goBuild(t, clone, "-buildvcs=true"); !pseudo.MatchString(got) {
		t.Errorf("a clone's build of a commit after v1.2.3 prints %q, want a pseudo-version of %s (%v)", got, head[:12], pseudo)
	}
	if err := os.WriteFile(filepath.Join(clone, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := goBuild(t, clone, "-buildvcs=true"), "+dirty"; !strings.HasSuffix(got, want) {
		t.Errorf("a clone with changes prints %q, want it to end %q", got, want)
	}
	if got, want := goBuild(t, clone, "-buildvcs=false"), "devel"; got != want {
		t.Errorf("a clone built without VCS prints %q, want %q", got, want)
	}
}

// TestEveryBuildStamps: each build that has no .git to read (a release,
// the Action's build from its tarball, the container's from a context
// without .git) stamps VersionVar, the variable TestVersionStamped proves
// the linker sets: a name mistyped there is silently ignored.
func TestEveryBuildStamps(t *testing.T) {
	for _, file := range []string{".goreleaser.yaml", "action.yml", "Dockerfile"} {
		b, err := os.ReadFile(filepath.Join("../..", file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "-X "+VersionVar+"=") {
			t.Errorf("%s does not stamp -X %s=", file, VersionVar)
		}
	}
}

// TestEveryImageCarriesVerifyBundle: verify --bundle runs
// plantcheck-verify-bundle from beside plantcheck, so every image that
// ships plantcheck ships it too, in the same folder.
func TestEveryImageCarriesVerifyBundle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, want string }{
		{"Dockerfile", "./cmd/plantcheck-verify-bundle"},
		{"Dockerfile", "/out/plantcheck-verify-bundle /\n"},
		{"Dockerfile.release", "$TARGETPLATFORM/plantcheck-verify-bundle /\n"},
		{".goreleaser.yaml", "ids: [plantcheck, plantcheck-verify-bundle]\n    dockerfile: Dockerfile.release"},
	} {
		b, err := os.ReadFile(filepath.Join("../..", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), c.want) {
			t.Errorf("%s lacks %q: its image would not carry plantcheck-verify-bundle", c.file, c.want)
		}
	}
}
