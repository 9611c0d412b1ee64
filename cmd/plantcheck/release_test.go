package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"
)

// releaseServer stands in for the releases' download URL on loopback: it
// serves files by path (/TAG/NAME), 404 for any other, and records what
// was asked.
type releaseServer struct {
	files map[string][]byte
	mu    sync.Mutex
	asked []string
}

func (s *releaseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.asked = append(s.asked, r.URL.Path)
	s.mu.Unlock()
	b, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(b)
}

// release adds to files a release: one asset per name, each its own
// bytes, and the checksums file (sha256sum's format) listing those of
// listed.
func release(files map[string][]byte, tag string, assets map[string][]byte, listed []string) {
	version := strings.TrimPrefix(tag, "v")
	var sums strings.Builder
	for _, name := range listed {
		sum := sha256.Sum256(assets[name])
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	files["/"+tag+"/plantcheck_"+version+"_checksums.txt"] = []byte(sums.String())
	for name, b := range assets {
		files["/"+tag+"/"+name] = b
	}
}

// TestActionRelease runs the action's first step (id release) as a runner
// runs it, against a file server on loopback standing in for the
// releases: a release tag gets the asset for the runner's OS and
// architecture, verified against the checksums file and put on the PATH
// the action sets; a binary that does not match is refused with exit 2
// and the reason, and never installed; a ref that is no release tag, a
// release without the runner's asset, or no release at all, falls back to
// the build, with the version the build stamps.
func TestActionRelease(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	var step string
	for _, s := range readAction(t).Runs.Steps {
		if s.ID == "release" {
			step = s.Run
			if !strings.Contains(s.Env["ACTION_REF"], "github.action_ref") {
				t.Errorf("the release step's ACTION_REF is %q, want github.action_ref", s.Env["ACTION_REF"])
			}
		}
	}
	if step == "" {
		t.Fatal("action.yml has no step with id release")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	files := map[string][]byte{}
	good := map[string][]byte{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			name := "plantcheck_1.2.3_" + goos + "_" + arch
			if goos == "windows" {
				name += ".exe"
			}
			good[name] = []byte("the " + goos + "/" + arch + " binary of v1.2.3\n")
		}
	}
	release(files, "v1.2.3", good, slices.Sorted(maps.Keys(good)))
	// v1.3.0: its linux/amd64 binary is not the one its checksums name;
	// its darwin/arm64 one is missing; its windows/arm64 one is unlisted.
	release(files, "v1.3.0", map[string][]byte{
		"plantcheck_1.3.0_linux_amd64":       []byte("the binary that was released\n"),
		"plantcheck_1.3.0_windows_arm64.exe": []byte("a binary the checksums do not list\n"),
	}, []string{"plantcheck_1.3.0_linux_amd64"})
	files["/v1.3.0/plantcheck_1.3.0_linux_amd64"] = []byte("a binary swapped after the release\n")
	srv := &releaseServer{files: files}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	dir := t.TempDir()
	stubDir := filepath.Join(dir, "stub")
	if err := os.Mkdir(stubDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Git Bash's cygpath, which the step calls on Windows.
	if err := os.WriteFile(filepath.Join(stubDir, "cygpath"), []byte("#!/usr/bin/env bash\necho \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	const sha = "9d85ac9a6dd3b1e0c8f4a7d2e6b5c3a1f0e9d8c7"
	tests := []struct {
		name            string
		ref, actionPath string
		runnerOS, arch  string
		code            int
		path, version   string // GITHUB_OUTPUT's path= and version=
		asset           string // the asset installed; "" none
		asked           []string
		says            string // on the step's output
	}{
		{name: "Linux X64", ref: "v1.2.3", runnerOS: "Linux", arch: "X64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_linux_amd64"},
		{name: "Linux ARM64", ref: "v1.2.3", runnerOS: "Linux", arch: "ARM64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_linux_arm64"},
		{name: "macOS X64", ref: "v1.2.3", runnerOS: "macOS", arch: "X64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_darwin_amd64"},
		{name: "macOS ARM64", ref: "v1.2.3", runnerOS: "macOS", arch: "ARM64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_darwin_arm64"},
		{name: "Windows X64", ref: "v1.2.3", runnerOS: "Windows", arch: "X64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_windows_amd64.exe"},
		{
			name: "Windows ARM64", ref: "v1.2.3", runnerOS: "Windows", arch: "ARM64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_windows_arm64.exe",
			asked: []string{"/v1.2.3/plantcheck_1.2.3_checksums.txt", "/v1.2.3/plantcheck_1.2.3_windows_arm64.exe"},
		},
		{
			name: "the ref from the action's path", actionPath: "/home/runner/work/_actions/plantcheck/plantcheck/v1.2.3",
			runnerOS: "Linux", arch: "X64", path: "release", version: "v1.2.3", asset: "plantcheck_1.2.3_linux_amd64",
		},
		{
			name: "a checksum mismatch", ref: "v1.3.0", runnerOS: "Linux", arch: "X64", code: 2,
			says: `the release binary plantcheck_1.3.0_linux_amd64 does not match plantcheck_1.3.0_checksums.txt \(sha256 [0-9a-f]{64}, the release says [0-9a-f]{64}\); it was not run: exit 2`,
		},
		{name: "an asset the checksums do not list", ref: "v1.3.0", runnerOS: "Windows", arch: "ARM64", code: 2, says: `does not list plantcheck_1.3.0_windows_arm64.exe, so its binary cannot be verified`},
		{name: "a missing asset", ref: "v1.3.0", runnerOS: "macOS", arch: "ARM64", path: "build", version: "v1.3.0", says: `plantcheck_1.3.0_darwin_arm64 answered HTTP 404`},
		{name: "no such release", ref: "v9.9.9", runnerOS: "Linux", arch: "X64", path: "build", version: "v9.9.9", says: `plantcheck_9.9.9_checksums.txt answered HTTP 404`},
		{name: "a moving major tag", ref: "v1", runnerOS: "Linux", arch: "X64", path: "build", version: "devel-v1", asked: []string{}, says: "not a release tag"},
		{name: "a branch", ref: "main", runnerOS: "Linux", arch: "X64", path: "build", version: "devel-main", asked: []string{}},
		{name: "a commit", ref: sha, runnerOS: "Linux", arch: "X64", path: "build", version: "devel-" + sha[:12], asked: []string{}},
		{name: "a branch with a slash", ref: "feat/x$(id)", runnerOS: "Linux", arch: "X64", path: "build", version: "devel-feat_x__id_", asked: []string{}},
		{name: "no ref", runnerOS: "Linux", arch: "X64", path: "build", version: "devel", asked: []string{}},
		{name: "another OS", ref: "v1.2.3", runnerOS: "FreeBSD", arch: "X64", path: "build", version: "v1.2.3", asked: []string{}, says: "runner's OS FreeBSD"},
		{name: "another architecture", ref: "v1.2.3", runnerOS: "Linux", arch: "ARM", path: "build", version: "v1.2.3", asked: []string{}, says: "runner's architecture ARM"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := filepath.Join(dir, fmt.Sprint("home", i))
			output, ghPath, summary := filepath.Join(dir, fmt.Sprint("output", i)), filepath.Join(dir, fmt.Sprint("path", i)), filepath.Join(dir, fmt.Sprint("summary", i))
			script := filepath.Join(dir, "release.sh")
			if err := os.WriteFile(script, []byte(step), 0o644); err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			srv.asked = nil
			srv.mu.Unlock()
			cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir = repo
			cmd.Env = []string{
				"PATH=" + stubDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home,
				"GITHUB_OUTPUT=" + output, "GITHUB_PATH=" + ghPath, "GITHUB_STEP_SUMMARY=" + summary,
				"GITHUB_ACTION_PATH=" + tt.actionPath, "ACTION_REF=" + tt.ref,
				"RUNNER_OS=" + tt.runnerOS, "RUNNER_ARCH=" + tt.arch, "RUNNER_TEMP=" + dir,
				"PLANTCHECK_RELEASES_URL=" + ts.URL + "/",
			}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			if code != tt.code {
				t.Errorf("the step exits %d, want %d\n%s", code, tt.code, out.String())
			}
			if tt.says != "" && !regexp.MustCompile(tt.says).MatchString(out.String()) {
				t.Errorf("the step's output does not say %q:\n%s", tt.says, out.String())
			}
			got, _ := os.ReadFile(output)
			want := ""
			if tt.path != "" {
				want = "path=" + tt.path + "\nversion=" + tt.version + "\n"
			}
			if string(got) != want {
				t.Errorf("GITHUB_OUTPUT %q, want %q\n%s", got, want, out.String())
			}
			bin := filepath.Join(home, ".cache", "plantcheck-action", "bin")
			if p, _ := os.ReadFile(ghPath); string(p) != bin+"\n" {
				t.Errorf("GITHUB_PATH %q, want %q", p, bin+"\n")
			}
			installed, _ := os.ReadDir(bin)
			switch {
			case tt.asset == "":
				if len(installed) != 0 {
					t.Errorf("%s holds %v, want nothing installed", bin, installed)
				}
			default:
				name := "plantcheck"
				if tt.runnerOS == "Windows" {
					name += ".exe"
				}
				b, err := os.ReadFile(filepath.Join(bin, name))
				if err != nil {
					t.Fatalf("no binary installed: %v\n%s", err, out.String())
				}
				if !slices.Equal(b, good[tt.asset]) {
					t.Errorf("installed %q, want %s's %q", b, tt.asset, good[tt.asset])
				}
				if fi, _ := os.Stat(filepath.Join(bin, name)); fi.Mode()&0o100 == 0 {
					t.Errorf("the binary's mode is %v, not executable", fi.Mode())
				}
			}
			if code == 2 {
				if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "does not") {
					t.Errorf("the job summary %q does not give the reason", s)
				}
			}
			if tt.asked != nil {
				srv.mu.Lock()
				asked := slices.Clone(srv.asked)
				srv.mu.Unlock()
				if !slices.Equal(asked, tt.asked) {
					t.Errorf("the step asked for %q, want %q", asked, tt.asked)
				}
			}
		})
	}
}

// TestActionReleaseNeedsNoGo: on the release path no step sets up Go,
// restores its caches or builds; each of those runs on the build path
// only.
func TestActionReleaseNeedsNoGo(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	build := 0
	for i, s := range a.Runs.Steps {
		uses, _, _ := strings.Cut(s.Uses, "@")
		goStep := uses == "actions/setup-go" || strings.Contains(s.Run, "go build") || strings.Contains(s.Run, "go env") ||
			uses == "actions/cache/restore" || uses == "actions/cache/save"
		if !goStep {
			continue
		}
		build++
		if !strings.Contains(s.If, "steps.release.outputs.path == 'build'") {
			t.Errorf("step %d (%s) runs on the release path too: if: %q", i+1, s.Name, s.If)
		}
	}
	if build == 0 {
		t.Error("no step builds plantcheck")
	}
}

// TestReleaseMeasuresStrength: the release workflow runs the whole
// self-test and compares it with the figures the binary carries
// (measure -check on the strength.json the build embeds) before GoReleaser
// builds anything, in the job that publishes.
func TestReleaseMeasuresStrength(t *testing.T) {
	t.Parallel()
	const (
		file    = "../../.github/workflows/release.yml"
		measure = "go run ./internal/strength/measure -check -out internal/strength/strength.json"
	)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../../internal/strength/measure/main.go", "../../internal/strength/strength.json"} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the release's measure names %s: %v", p, err)
		}
	}
	for job, j := range wf.Jobs {
		measured, released := -1, -1
		for i, s := range j.Steps {
			if strings.TrimSpace(s.Run) == measure {
				measured = i
			}
			if strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") {
				released = i
			}
		}
		if released < 0 {
			continue
		}
		if measured < 0 || measured > released {
			t.Errorf("release.yml, job %s: no step %q before GoReleaser (step %d)", job, measure, released+1)
		}
		return
	}
	t.Errorf("release.yml has no job running GoReleaser")
}
