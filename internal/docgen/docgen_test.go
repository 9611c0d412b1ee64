package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantcheck/plantcheck/spec/rules"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	paths, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("wrote %v", paths)
	}
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules.Catalog {
		// Each rule: in the table, then as a section with its level,
		// requirement and source.
		wantMD := []string{
			"| [" + string(r.ID) + "](#" + strings.ToLower(string(r.ID)) + ") | " + strings.ToUpper(string(r.Level)) + " |",
			"### " + string(r.ID) + "\n\n**" + strings.ToUpper(string(r.Level)) + "**: " + r.Requirement + "\n*Source: " + r.Source + ".*",
		}
		for _, w := range wantMD {
			if !strings.Contains(string(md), w) {
				t.Errorf("Markdown lacks %q", w)
			}
		}
		if !regexp.MustCompile(`<section class="rule" id="` + strings.ToLower(string(r.ID)) + `">\s*<h3>` + string(r.ID) + ` <span class="level ` + string(r.Level) + `">`).Match(html) {
			t.Errorf("HTML lacks the section of %s", r.ID)
		}
	}
	for _, w := range []string{
		"## Authentication",
		"Then the response status is 400",
		"| field | case | change |",
		`| id | a fraction | the field "id" is the JSON value 1.5 |`,
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("Markdown lacks %q", w)
		}
	}
	if strings.Contains(string(html), `\|`) || strings.Contains(string(html), "<script") || strings.Contains(string(html), `href="http`) {
		t.Errorf("HTML holds Markdown escapes, scripts or external links")
	}
}

// TestCommittedDocsAreCurrent keeps the rendered documentation in docs/generated/,
// which the README links, in step with the features.
func TestCommittedDocsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{MarkdownFile, HTMLFile} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", "generated", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("docs/generated/%s is out of date: run go run ./cmd/plantcheck docs --out docs/generated", name)
		}
	}
}
