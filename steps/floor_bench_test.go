package steps

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"testing"

	"github.com/cucumber/godog"

	"github.com/plantcheck/plantcheck/features"
)

// BenchmarkGodogFloor measures what godog itself costs a run: every
// scenario of the features, with the suite's step patterns bound to
// functions that do nothing and send nothing. It is the floor under
// plantcheck's cost per exchange that no change to what the steps do can
// lower: godog stores every step's result in its own in-memory database
// and calls every step by reflection.
func BenchmarkGodogFloor(b *testing.B) {
	s, err := New(Config{BaseURL: "http://127.0.0.1:1", Token: "t", Client: &http.Client{}, Validator: validator()})
	if err != nil {
		b.Fatal(err)
	}
	ctxType := reflect.TypeFor[context.Context]()
	var noop []stepDef
	for _, d := range s.stepDefs() {
		t := reflect.TypeOf(d.fn)
		fn := reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
			out := make([]reflect.Value, t.NumOut())
			for i := range out {
				if t.Out(i) == ctxType && len(args) > 0 && args[0].Type() == ctxType {
					out[i] = args[0]
				} else {
					out[i] = reflect.Zero(t.Out(i))
				}
			}
			return out
		})
		noop = append(noop, stepDef{d.pattern, fn.Interface()})
	}
	var steps, scenarios int
	b.ReportAllocs()
	for b.Loop() {
		status := godog.TestSuite{
			// Registered once per suite, as the real run registers them.
			TestSuiteInitializer: func(ts *godog.TestSuiteContext) {
				sc := ts.ScenarioContext()
				sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
					scenarios++
					return ctx, nil
				})
				sc.StepContext().After(func(ctx context.Context, _ *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
					steps++
					return ctx, err
				})
				for _, d := range noop {
					sc.Step(d.pattern, d.fn)
				}
			},
			Options: &godog.Options{Format: "progress", Output: io.Discard, FS: features.FS, Paths: []string{"."}, Strict: true, Concurrency: 1, NoColors: true},
		}.Run()
		if status != 0 {
			b.Fatalf("godog status %d", status)
		}
	}
	b.ReportMetric(float64(scenarios)/float64(b.N), "scenarios/run")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/run")
}
