package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/shell"
)

// Every workflow the README and docs/ show is a file of the repository
// (docs/examples/ for a user's, .github/workflows/ for the repository's
// own), parsed and checked here, and what the pages show is that file, or a
// run of its lines, word for word: an example that does not work as pasted
// fails a test, not a user.

// workflow is the part of a GitHub workflow the checks read.
type workflow struct {
	// Permissions are the token's, a map or a word (write-all); a job's
	// replace the workflow's.
	Permissions any `yaml:"permissions"`
	Jobs        map[string]struct {
		Permissions any            `yaml:"permissions"`
		Steps       []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

// grants reports whether permissions (a job's, else its workflow's) give
// scope write.
func grants(permissions any, scope string) bool {
	switch p := permissions.(type) {
	case string:
		return p == "write-all"
	case map[string]any:
		return p[scope] == "write"
	}
	return false
}

type workflowStep struct {
	Name string         `yaml:"name"`
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

var (
	// pinnedRef is a ref that does not move under a workflow: a version
	// tag or a full commit SHA (never a branch such as main).
	pinnedRef = regexp.MustCompile(`^(v\d+(\.\d+){0,2}|[0-9a-f]{40})$`)
	// scriptRun is a script a run step starts by its path.
	scriptRun = regexp.MustCompile(`(?m)(?:^|&&|;)\s*bash\s+(\S+)`)
	// exampleMarker is the first line of a shown example: the file it is.
	exampleMarker = regexp.MustCompile(`^# ((?:docs/examples|\.github/workflows)/[A-Za-z0-9._-]+)( \(excerpt\))?$`)
	// fencedYAML is a YAML block of a Markdown page.
	fencedYAML = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")
)

// exampleEnv are the variables the example config file reads.
var exampleEnv = map[string]string{"PLANT_STORE_TOKEN": "an-example-token-0123456789", "GATEWAY_KEY": "an-example-key"}

// workflowProblems returns what is wrong with the workflow file name (a
// path from the repository's root, which is root): own says it is the
// repository's own CI, whose paths are the repository's; a user's workflow
// reaches this repository only through the Action or a checkout of it.
func workflowProblems(root, name string, data []byte, inputs map[string]bool) []string {
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return []string{fmt.Sprintf("%s does not parse: %v", name, err)}
	}
	own := strings.HasPrefix(name, ".github/workflows/")
	var problems []string
	bad := func(job string, i int, format string, a ...any) {
		problems = append(problems, fmt.Sprintf("%s, job %s, step %d: %s", name, job, i+1, fmt.Sprintf(format, a...)))
	}
	if len(wf.Jobs) == 0 {
		problems = append(problems, name+": no jobs")
	}
	jobs := make([]string, 0, len(wf.Jobs))
	for j := range wf.Jobs {
		jobs = append(jobs, j)
	}
	slices.Sort(jobs)
	for _, job := range jobs {
		// checkouts are the folders of the workspace that hold this
		// repository, checked out at a pinned ref by a step before.
		checkouts := map[string]bool{}
		if own {
			checkouts["."] = false // checked out below, by actions/checkout
		}
		// exists says whether a path of the workspace names a file of this
		// repository, checked out by a step before.
		exists := func(p string) bool {
			p = path.Clean(p)
			for dir, out := range checkouts {
				rel := p
				if dir != "." {
					var ok bool
					if rel, ok = strings.CutPrefix(p, dir+"/"); !ok {
						continue
					}
				}
				if !out {
					return false
				}
				_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
				return err == nil
			}
			return false
		}
		for i, step := range wf.Jobs[job].Steps {
			with := func(key string) (string, bool) {
				v, ok := step.With[key]
				if !ok {
					return "", false
				}
				return fmt.Sprint(v), true
			}
			if step.Uses == "" {
				for _, m := range scriptRun.FindAllStringSubmatch(step.Run, -1) {
					if !exists(m[1]) {
						bad(job, i, "run: starts %s, which is not a file of this repository checked out by a step before", m[1])
					}
				}
				if strings.Contains(step.Run, "--tags") {
					bad(job, i, "run: --tags certifies part of the suite only: an example certifies the whole suite")
				}
				continue
			}
			action, ref, pinned := strings.Cut(step.Uses, "@")
			ours := false
			switch {
			case strings.HasPrefix(step.Uses, "./"):
				dir := path.Clean(step.Uses)
				if out, ok := checkouts[dir]; !ok || !out {
					bad(job, i, "uses: %s, a folder no step before checks this repository out into", step.Uses)
				}
				ours = true
			case !pinned:
				bad(job, i, "uses: %s is not pinned: add @ and a version tag or a full commit SHA", step.Uses)
			case !pinnedRef.MatchString(ref):
				bad(job, i, "uses: %s: @%s is not a version tag or a full commit SHA", step.Uses, ref)
			}
			if action == "plantcheck/plantcheck" {
				ours = true
			}
			switch action {
			case "actions/checkout":
				repo, _ := with("repository")
				dir, _ := with("path")
				if dir == "" {
					dir = "."
				}
				if repo != "" && repo != "plantcheck/plantcheck" {
					continue
				}
				if repo != "" {
					if r, _ := with("ref"); !pinnedRef.MatchString(r) {
						bad(job, i, "checks out plantcheck/plantcheck at ref %q: pin a version tag or a full commit SHA", r)
					}
				}
				checkouts[path.Clean(dir)] = repo != "" || own
			case "actions/setup-go":
				if c, _ := with("cache"); c == "false" {
					break
				}
				sum, ok := with("cache-dependency-path")
				if !ok {
					sum = "go.sum" // setup-go's default
				}
				if !exists(sum) || path.Base(sum) != "go.sum" {
					bad(job, i, "setup-go's cache keys on %s, which is not this repository's go.sum checked out by a step before: the cache would never restore", sum)
				}
				if f, ok := with("go-version-file"); ok && !exists(f) {
					bad(job, i, "go-version-file: %s is not a file of this repository checked out by a step before", f)
				}
			}
			if !ours {
				continue
			}
			keys := make([]string, 0, len(step.With))
			for k := range step.With {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if !inputs[k] {
					bad(job, i, "with: %s is not an input of action.yml", k)
				}
			}
			if a, _ := with("attest"); a == "true" {
				perms := wf.Jobs[job].Permissions
				if perms == nil {
					perms = wf.Permissions
				}
				for _, scope := range []string{"id-token", "attestations"} {
					if !grants(perms, scope) {
						bad(job, i, "attest: true needs the permission %s: write (actions/attest signs with the job's OIDC token and stores the attestation)", scope)
					}
				}
			}
			if cfg, ok := with("config"); ok {
				if _, err := os.Stat(filepath.Join(root, "docs", "examples", path.Base(cfg))); err != nil {
					bad(job, i, "config: %s has no example in docs/examples/", cfg)
				}
			}
			if args, ok := with("args"); ok {
				words, err := shell.Split(args)
				if err != nil {
					bad(job, i, "args do not split: %v", err)
				}
				fs := flag.NewFlagSet("run", flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				config.Define[config.RunFlags](fs, "run")
				if err := fs.Parse(words); err != nil {
					bad(job, i, "args are not flags of plantcheck run: %v", err)
				}
				if fs.Lookup("tags").Value.String() != "" {
					bad(job, i, "args: --tags certifies part of the suite only: an example certifies the whole suite")
				}
			}
		}
	}
	return problems
}

// exampleProblems returns what is wrong with a page's YAML blocks: each
// workflow shown (or a block that names its file) is a file of
// docs/examples/ or .github/workflows/, whole, or a run of its lines when
// marked "(excerpt)".
func exampleProblems(root, page string, text []byte) []string {
	var problems []string
	for _, m := range fencedYAML.FindAllSubmatch(text, -1) {
		block := string(m[1])
		first, rest, _ := strings.Cut(block, "\n")
		mark := exampleMarker.FindStringSubmatch(first)
		if mark == nil {
			if regexp.MustCompile(`(?m)^\s*(-\s+)?(uses|runs-on|jobs):`).MatchString(block) {
				problems = append(problems, fmt.Sprintf("%s shows a workflow that is no file: start its block with # docs/examples/NAME.yml and make it that file (%q)", page, first))
			}
			continue
		}
		file, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(mark[1])))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s shows %s, which does not exist", page, mark[1]))
			continue
		}
		switch excerpt := mark[2] != ""; {
		case !excerpt && rest != string(file):
			problems = append(problems, fmt.Sprintf("%s shows %s otherwise than the file is: make them one", page, mark[1]))
		case excerpt && !strings.HasPrefix(string(file), rest) && !strings.Contains(string(file), "\n"+rest):
			problems = append(problems, fmt.Sprintf("%s shows an excerpt of %s that is not a run of its lines", page, mark[1]))
		}
	}
	return problems
}

// actionInputs reads the inputs of action.yml.
func actionInputs(t *testing.T, root string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]bool{}
	for k := range a.Inputs {
		inputs[k] = true
	}
	return inputs
}

func TestWorkflowExamples(t *testing.T) {
	t.Parallel()
	const root = "../.."
	inputs := actionInputs(t, root)
	var files []string
	for _, glob := range []string{"docs/examples/*.yml", ".github/workflows/*.yml"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found %d workflow files, want the two examples and the repository's CI", len(files))
	}
	sawCI := false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, f)
		name = filepath.ToSlash(name)
		for _, p := range workflowProblems(root, name, data, inputs) {
			t.Error(p)
		}
		if name == ".github/workflows/ci.yml" {
			sawCI = strings.Contains(string(data), "bash .ci/run")
		}
	}
	if !sawCI {
		t.Error(".github/workflows/ci.yml does not run bash .ci/run")
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	shown := 0
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		shown += strings.Count(string(text), "\n# docs/examples/")
		for _, problem := range exampleProblems(root, filepath.Base(p), text) {
			t.Error(problem)
		}
	}
	if shown == 0 {
		t.Error("no page shows an example file")
	}
}

// TestExampleConfig reads the example config file as plantcheck run reads
// one: its keys are flags, its variables set.
func TestExampleConfig(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := config.Define[config.RunFlags](fs, "run")
	if err := fs.Parse([]string{"--config", "../../docs/examples/plantcheck.yaml"}); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := f.Resolve(fs, config.Env{Getenv: func(k string) string { return exampleEnv[k] }})
	if err != nil {
		t.Fatalf("docs/examples/plantcheck.yaml: %v", err)
	}
	if got, want := cfg.Token, exampleEnv["PLANT_STORE_TOKEN"]; got != want {
		t.Errorf("token %q, want %q from ${PLANT_STORE_TOKEN}", got, want)
	}
	if cfg.Reference || cfg.Tags != "" {
		t.Errorf("the example certifies the bundled reference (%v) or part of the suite (tags %q)", cfg.Reference, cfg.Tags)
	}
}

// Each check of workflowProblems and exampleProblems catches the fault it
// is for, and passes the example that keeps it.
func TestWorkflowProblems(t *testing.T) {
	t.Parallel()
	const root = "../.."
	inputs := map[string]bool{"base-url": true, "token": true, "args": true, "config": true, "attest": true}
	const good = `
jobs:
  j:
    steps:
      - uses: actions/checkout@v4
        with: { repository: plantcheck/plantcheck, ref: v1.0.0, path: pc }
      - uses: actions/setup-go@v5
        with: { go-version-file: pc/go.mod, cache-dependency-path: pc/go.sum }
      - run: cd pc && go install ./cmd/plantcheck
      - uses: plantcheck/plantcheck@0123456789abcdef0123456789abcdef01234567
        with: { base-url: "https://x.example", token: t, args: --strict, config: plantcheck.yaml }
      - uses: ./pc
        with: { base-url: "https://x.example" }
`
	const ownGood = `
jobs:
  ci:
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with: { go-version-file: go.mod }
      - run: bash .ci/run
`
	tests := []struct {
		name, file, text string
		want             string // a substring of one problem; "" for none
	}{
		{name: "good", file: "docs/examples/x.yml", text: good},
		{name: "own CI good", file: ".github/workflows/ci.yml", text: ownGood},
		{name: "not YAML", file: "docs/examples/x.yml", text: "jobs: [", want: "does not parse"},
		{name: "unpinned action", file: "docs/examples/x.yml", text: strings.Replace(good, "actions/setup-go@v5", "actions/setup-go", 1), want: "is not pinned"},
		{name: "action at main", file: "docs/examples/x.yml", text: strings.Replace(good, "@0123456789abcdef0123456789abcdef01234567", "@main", 1), want: "@main is not a version tag"},
		{name: "short SHA", file: "docs/examples/x.yml", text: strings.Replace(good, "@0123456789abcdef0123456789abcdef01234567", "@0123456", 1), want: "@0123456 is not a version tag"},
		{name: "checkout of plantcheck unpinned", file: "docs/examples/x.yml", text: strings.Replace(good, "ref: v1.0.0, ", "", 1), want: `at ref ""`},
		{name: "checkout of plantcheck at main", file: "docs/examples/x.yml", text: strings.Replace(good, "ref: v1.0.0", "ref: main", 1), want: `at ref "main"`},
		{name: "setup-go cache on the workspace's go.sum", file: "docs/examples/x.yml", text: strings.Replace(good, "cache-dependency-path: pc/go.sum", "cache-dependency-path: go.sum", 1), want: "setup-go's cache keys on go.sum"},
		{name: "setup-go cache by default", file: "docs/examples/x.yml", text: strings.Replace(good, ", cache-dependency-path: pc/go.sum", "", 1), want: "setup-go's cache keys on go.sum"},
		{name: "setup-go before the checkout", file: "docs/examples/x.yml", text: strings.Replace(good, "      - uses: actions/checkout@v4\n        with: { repository: plantcheck/plantcheck, ref: v1.0.0, path: pc }\n", "", 1), want: "setup-go's cache keys on pc/go.sum"},
		{name: "setup-go's cache off", file: "docs/examples/x.yml", text: strings.Replace(good, "cache-dependency-path: pc/go.sum", "cache: false", 1)},
		{name: "go-version-file missing", file: "docs/examples/x.yml", text: strings.Replace(good, "pc/go.mod", "pc/go.mod.missing", 1), want: "go-version-file: pc/go.mod.missing"},
		{name: "an input the action lacks", file: "docs/examples/x.yml", text: strings.Replace(good, "token: t,", "tokn: t,", 1), want: "with: tokn is not an input"},
		{name: "an input the action lacks, by path", file: "docs/examples/x.yml", text: strings.Replace(good, `{ base-url: "https://x.example" }`, `{ base_url: "https://x.example" }`, 1), want: "with: base_url is not an input"},
		{name: "a local action never checked out", file: "docs/examples/x.yml", text: strings.Replace(good, "uses: ./pc", "uses: ./plantcheck", 1), want: "a folder no step before checks"},
		{name: "part of the suite", file: "docs/examples/x.yml", text: strings.Replace(good, "args: --strict", `args: "--strict --tags '@must && ~@AUTH-NEAR-MISS'"`, 1), want: "--tags certifies part of the suite"},
		{name: "part of the suite, in a run step", file: "docs/examples/x.yml", text: strings.Replace(good, "go install ./cmd/plantcheck", "plantcheck run --tags @must", 1), want: "--tags certifies part of the suite"},
		{name: "args that are no flags", file: "docs/examples/x.yml", text: strings.Replace(good, "args: --strict", "args: --strickt", 1), want: "not flags of plantcheck run"},
		{name: "attested, with its permissions", file: "docs/examples/x.yml",
			text: strings.Replace(strings.Replace(good, "    steps:", "    permissions: { id-token: write, attestations: write }\n    steps:", 1), "token: t,", "token: t, attest: true,", 1)},
		{name: "attested, the workflow's permissions", file: "docs/examples/x.yml",
			text: "permissions: write-all\n" + strings.Replace(good, "token: t,", "token: t, attest: true,", 1)},
		{name: "attested, without attestations: write", file: "docs/examples/x.yml",
			text: strings.Replace(strings.Replace(good, "    steps:", "    permissions: { id-token: write }\n    steps:", 1), "token: t,", "token: t, attest: true,", 1),
			want: "needs the permission attestations: write"},
		{name: "attested, without permissions", file: "docs/examples/x.yml", text: strings.Replace(good, "token: t,", "token: t, attest: true,", 1),
			want: "needs the permission id-token: write"},
		{name: "a config with no example", file: "docs/examples/x.yml", text: strings.Replace(good, "config: plantcheck.yaml", "config: ci/plants.yaml", 1), want: "config: ci/plants.yaml has no example"},
		{name: "own CI runs a script that is not there", file: ".github/workflows/ci.yml", text: strings.Replace(ownGood, ".ci/run", ".ci/test", 1), want: "starts .ci/test"},
		{name: "own CI before its checkout", file: ".github/workflows/ci.yml", text: strings.Replace(ownGood, "      - uses: actions/checkout@v4\n", "", 1), want: "starts .ci/run"},
		{name: "a user's workflow runs a script of its own", file: "docs/examples/x.yml", text: good + "      - run: bash .ci/run\n", want: "starts .ci/run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := workflowProblems(root, tt.file, []byte(tt.text), inputs)
			if tt.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems %q, want none", problems)
				}
				return
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("problems %q, want one with %q", problems, tt.want)
			}
		})
	}
}

func TestExampleProblems(t *testing.T) {
	t.Parallel()
	const root = "../.."
	file, err := os.ReadFile(filepath.Join(root, "docs", "examples", "conformance.yml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(file), "\n")
	whole := "```yaml\n# docs/examples/conformance.yml\n" + string(file) + "```\n"
	excerpt := "```yaml\n# docs/examples/conformance.yml (excerpt)\n" + strings.Join(lines[9:12], "") + "```\n"
	tests := []struct {
		name, page string
		want       string
	}{
		{name: "the whole file", page: whole},
		{name: "an excerpt", page: excerpt},
		{name: "not a workflow", page: "```yaml\nkind: Deployment\n```\n"},
		{name: "a workflow that is no file", page: "```yaml\njobs:\n  j:\n    steps:\n      - uses: actions/checkout@v4\n```\n", want: "shows a workflow that is no file"},
		{name: "a step that is no file", page: "```yaml\n- uses: plantcheck/plantcheck@v1\n```\n", want: "shows a workflow that is no file"},
		{name: "a file that is not there", page: "```yaml\n# docs/examples/nothing.yml\njobs: {}\n```\n", want: "does not exist"},
		{name: "the file changed", page: strings.Replace(whole, "ubuntu-latest", "ubuntu-22.04", 1), want: "otherwise than the file is"},
		{name: "an excerpt changed", page: strings.Replace(excerpt, "plantcheck/plantcheck@", "plantcheck/plantcheck@x", 1), want: "not a run of its lines"},
		{name: "an excerpt as the whole", page: strings.Replace(excerpt, " (excerpt)", "", 1), want: "otherwise than the file is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := exampleProblems(root, "page.md", []byte(tt.page))
			if tt.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems %q, want none", problems)
				}
				return
			}
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tt.want) }) {
				t.Errorf("problems %q, want one with %q", problems, tt.want)
			}
		})
	}
}
