package conformance

import (
	_ "embed"
	"html/template"
	"strings"

	"github.com/plantcheck/plantcheck/internal/htmlpage"
	"github.com/plantcheck/plantcheck/rules"
	"github.com/plantcheck/plantcheck/steps"
)

//go:embed report.html.tmpl
var reportTemplate string

var reportPage = template.Must(template.New("report").Funcs(htmlpage.Funcs()).Funcs(template.FuncMap{
	"upper":       func(l rules.Level) string { return strings.ToUpper(string(l)) },
	"failedOrErr": func(o steps.Outcome) bool { return o == steps.Failed || o == steps.Errored },
}).Parse(reportTemplate))
