package docgen

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/plantcheck/plantcheck/internal/config"
	"github.com/plantcheck/plantcheck/internal/run"
	"github.com/plantcheck/plantcheck/reference"
	"github.com/plantcheck/plantcheck/spec/rules"
	"github.com/plantcheck/plantcheck/steps"
)

// Example is one exchange of a rule's scenario, as the reference server
// answered it when the documentation was generated.
type Example struct {
	// Scenario is the scenario that sent it.
	Scenario string
	// Request and Response are the HTTP messages, the token shown as
	// <token> and the target's address as BaseURL.
	Request, Response string
}

// BaseURL stands for the service's address in the examples, as the
// specification writes it.
const BaseURL = "{base_url}"

// The run that makes the examples is fixed in every draw, so that the
// checked-in documentation comes out byte for byte the same at each
// generation: the seed, the salt of the fresh ids, the token (of the
// reference's form: base64url with a '-' and a '_', 80 characters, so that
// every variant of it a scenario makes can be made), one scenario at a
// time, and few generated bodies.
const (
	exampleSeed   = 35
	exampleSalt   = 0x5eed
	exampleToken  = "pLaNtChEcKdOcS-tOkEn_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
	exampleBodies = 2
)

// ExampleKey names a rule's scenarios in one feature file.
type ExampleKey struct {
	File string // the feature file's name
	Rule rules.RuleID
}

// Examples runs the whole suite against a reference server of its own, on
// loopback, and returns one exchange for each rule of each feature file:
// from the first of the rule's scenarios there that passed (an open rule's
// passes when its answer is noted), the first answered request the one
// judge judged by the rule (or, when it judged none so, the scenario's last).
func Examples(ctx context.Context) (map[ExampleKey]Example, error) {
	srv, err := reference.New(reference.Config{Token: exampleToken})
	if err != nil {
		return nil, err
	}
	base, stop, err := reference.Loopback(srv)
	if err != nil {
		return nil, err
	}
	defer stop()
	cfg, err := config.Run{
		BaseURL: base, Token: exampleToken, Seed: exampleSeed,
		Concurrency: 1, Examples: exampleBodies, Reference: true,
	}.Complete()
	if err != nil {
		return nil, err
	}
	rep, err := run.Run(ctx, run.Config(cfg), run.Options{Output: io.Discard, IDSalt: exampleSalt})
	if err != nil {
		return nil, fmt.Errorf("run the suite against the reference: %w", err)
	}
	// One scenario runs at a time, each feature's in their order in the
	// file.
	out := map[ExampleKey]Example{}
	for _, sc := range rep.Scenarios {
		id := sc.Rule.ID
		key := ExampleKey{File: path.Base(sc.URI), Rule: id}
		if _, done := out[key]; done || sc.Outcome != steps.Passed || len(sc.Exchanges) == 0 {
			continue
		}
		x := sc.Exchanges[len(sc.Exchanges)-1]
		for _, e := range sc.Exchanges {
			if _, judged := e.JudgedBy(id); judged && e.Answered() {
				x = e
				break
			}
		}
		if !x.Answered() {
			continue
		}
		req, resp := x.Message(BaseURL + strings.TrimPrefix(x.URL, base))
		out[key] = Example{Scenario: sc.Name, Request: req, Response: resp}
	}
	return out, nil
}
