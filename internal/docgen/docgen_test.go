package docgen

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/plantcheck/plantcheck/spec"
	"github.com/plantcheck/plantcheck/spec/rules"
)

// rendered is the documentation made once for the tests that read it: each
// making runs the suite against a reference.
var rendered = sync.OnceValues(func() ([2][]byte, error) {
	md, html, err := Render(context.Background())
	return [2][]byte{md, html}, err
})

func render(t *testing.T) (md, html string) {
	t.Helper()
	r, err := rendered()
	if err != nil {
		t.Fatal(err)
	}
	return string(r[0]), string(r[1])
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	paths, err := Write(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("wrote %v", paths)
	}
	for _, name := range []string{MarkdownFile, HTMLFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRules(t *testing.T) {
	md, html := render(t)
	for _, r := range rules.Catalog {
		// Each rule: in the table, then as a section with its level,
		// requirement and source, once.
		wantMD := []string{
			"| [" + string(r.ID) + "](#" + strings.ToLower(string(r.ID)) + ") | " + strings.ToUpper(string(r.Level)) + " | " + r.Source + " | " + strings.ReplaceAll(r.Requirement, "<", `\<`) + " |",
			"\n### " + string(r.ID) + "\n\n**" + strings.ToUpper(string(r.Level)) + "**: " + strings.ReplaceAll(r.Requirement, "<", `\<`) + "\n*Source: " + r.Source + ".*",
		}
		for _, w := range wantMD {
			if !strings.Contains(md, w) {
				t.Errorf("Markdown lacks %q", w)
			}
		}
		if n := strings.Count(md, "\n### "+string(r.ID)+"\n"); n != 1 {
			t.Errorf("Markdown heads %s %d times, want once", r.ID, n)
		}
		if n := strings.Count(html, ` id="`+strings.ToLower(string(r.ID))+`"`); n != 1 {
			t.Errorf("HTML has the id of %s %d times, want once", r.ID, n)
		}
		if !regexp.MustCompile(`<section class="rule" id="` + strings.ToLower(string(r.ID)) + `">\s*<h3 class="rule-id">` + string(r.ID) + ` <span class="level ` + string(r.Level) + `">`).MatchString(html) {
			t.Errorf("HTML lacks the section of %s", r.ID)
		}
	}
	for _, w := range []string{
		"## Authentication",
		"Then the response status is 400",
		"| field | case | change |",
		`| id | a fraction | the field "id" is the fresh id with the fraction .5 |`,
		"**More scenarios of [",
		`*Scenario: A valid request is accepted however it is spelled: \<case>*`,
	} {
		if !strings.Contains(md, w) {
			t.Errorf("Markdown lacks %q", w)
		}
	}
	if strings.Contains(html, `\|`) || strings.Contains(html, "<script") || strings.Contains(html, `href="http`) {
		t.Errorf("HTML holds Markdown escapes, scripts or external links")
	}
}

// TestReadingOrder: the API first, in the order a reader learns it, then
// the rest of the features, then plantcheck's workings and the index.
func TestReadingOrder(t *testing.T) {
	md, _ := render(t)
	last := -1
	for _, h := range []string{
		"## What the API does", "## The records", "### NewPlant", "### Plant", "### Error",
		"## Creating a plant", "## Authentication", "## Responses and error records",
		"## The request body", "## How plantcheck checks", "## All rules",
	} {
		i := strings.Index(md, "\n"+h+"\n")
		if i < 0 {
			t.Errorf("no heading %q", h)
			continue
		}
		if i < last {
			t.Errorf("%q comes before what it should follow", h)
		}
		last = i
	}
}

// TestExamples: every rule shows one real exchange, the token written
// <token>, the reference's address {base_url}; and no other.
func TestExamples(t *testing.T) {
	md, html := render(t)
	if n, want := strings.Count(md, "\nExample, from the scenario *"), len(rules.Catalog); n != want {
		t.Errorf("%d rules show an example, want every one of the %d", n, want)
	}
	for _, r := range rules.Catalog {
		sec := md[strings.Index(md, "\n### "+string(r.ID)+"\n"):]
		if i := strings.Index(sec[1:], "\n### "); i >= 0 {
			sec = sec[:i+1]
		}
		if !regexp.MustCompile("(?s)Example, from the scenario \\*[^\n]+\\*:\n\n```http\n(POST|GET|PUT) \\{base_url\\}/plants[^\n]* HTTP/1.1\n.*```\n\n```http\nHTTP/1.1 [0-9]{3} ").MatchString(sec) {
			t.Errorf("%s shows no request and answer", r.ID)
		}
	}
	for name, doc := range map[string]string{"Markdown": md, "HTML": html} {
		if strings.Contains(doc, exampleToken) || strings.Contains(doc, exampleToken[:20]) {
			t.Errorf("%s shows the token", name)
		}
		if strings.Contains(doc, "127.0.0.1") {
			t.Errorf("%s shows the reference's loopback address", name)
		}
	}
	if !strings.Contains(md, "Authorization: Bearer <token>\n") || !strings.Contains(html, "Authorization: Bearer &lt;token&gt;\n") {
		t.Error("no example shows the token as <token>")
	}
}

// TestRecords: the field tables are read from the OpenAPI document, and
// change with it.
func TestRecords(t *testing.T) {
	doc := string(spec.Document())
	const anchor = "          description: Tag to specify the type\n"
	tests := []struct {
		name, doc, record string
		want              Field
	}{
		{"as written", doc, "NewPlant", Field{Name: "id", Type: "integer (int64)", Required: "yes", Constraints: "from -9223372036854775808 to 9223372036854775807", Description: "Identification number of the plant"}},
		{"as written, Error", doc, "Error", Field{Name: "message", Type: "string", Required: "yes", Constraints: "none shown", Description: "Error message text"}},
		{
			"a new field", strings.Replace(doc, anchor, anchor+"        colour:\n          type: string\n          maxLength: 20\n          description: The colour of its leaves\n", 1),
			"Plant", Field{Name: "colour", Type: "string", Required: "no", Constraints: "maxLength 20", Description: "The colour of its leaves"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := spec.New([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			var b Book
			if err := b.readDocument(v); err != nil {
				t.Fatal(err)
			}
			if got, want := len(b.Records), 3; got != want {
				t.Fatalf("%d records, want %d", got, want)
			}
			for _, r := range b.Records {
				if r.Name != tt.record {
					continue
				}
				for _, f := range r.Fields {
					if f.Name == tt.want.Name {
						if f != tt.want {
							t.Errorf("field %+v, want %+v", f, tt.want)
						}
						return
					}
				}
			}
			t.Errorf("record %s has no field %s", tt.record, tt.want.Name)
		})
	}
}

// TestWorkings: a paragraph on how plantcheck checks moves from its
// feature or scenario to the section of its own, once.
func TestWorkings(t *testing.T) {
	fsys := fstest.MapFS{"a.feature": {Data: []byte(`Feature: A
  What the API promises.

  How plantcheck checks: each run draws fresh ids.

  @CREATE-200 @must
  Scenario Outline: one <x>
    The requirement, explained.

    How plantcheck checks: a probe first.

    Given a new plant with a fresh id and the name "<x>"

    @CREATE-200 @must
    Examples:
      | x |
      | a |

    @CREATE-NAME @must
    Examples:
      | x |
      | b |
`)}}
	b, err := Build(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := b.Features[0]
	if got := strings.Join(f.Description, "|"); got != "What the API promises." {
		t.Errorf("feature description %q", got)
	}
	if len(f.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(f.Groups))
	}
	for _, g := range f.Groups {
		if got := strings.Join(g.Scenarios[0].Description, "|"); got != "The requirement, explained." {
			t.Errorf("%s: scenario description %q", g.Rule.ID, got)
		}
	}
	want := []Working{
		{Feature: "A", Anchor: "feature-a", Text: "Each run draws fresh ids."},
		{Feature: "A", Anchor: "feature-a", Rule: "CREATE-200", Text: "A probe first."},
	}
	if len(b.Workings) != len(want) {
		t.Fatalf("workings %+v, want %+v", b.Workings, want)
	}
	for i := range want {
		if b.Workings[i] != want[i] {
			t.Errorf("working %d: %+v, want %+v", i, b.Workings[i], want[i])
		}
	}
}

// TestCommittedDocsAreCurrent keeps the rendered documentation in
// docs/generated/, which the README links, in step with the features, the
// document and the reference's answers; a generation that drew anything
// afresh (an id, a token, a port) would fail it too.
func TestCommittedDocsAreCurrent(t *testing.T) {
	md, html := render(t)
	for name, want := range map[string]string{MarkdownFile: md, HTMLFile: html} {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", "generated", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("docs/generated/%s is out of date: run go run ./cmd/plantcheck docs --report-dir docs/generated", name)
		}
	}
}
