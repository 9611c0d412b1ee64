package steps

import (
	"context"

	"github.com/plantcheck/plantcheck/check"
)

// Media types: the one a request declares, and the one an answer carries.

func (s *Suite) mediaSteps() []stepPattern {
	return []stepPattern{
		{`^the request declares the media type "([^"]*)"$`, s.theRequestDeclaresTheMediaType},
		{`^the request declares no media type$`, s.theRequestDeclaresNoMediaType},
		{`^the response media type is application/json$`, s.theResponseMediaTypeIsJSON},
	}
}

func (s *Suite) theRequestDeclaresTheMediaType(ctx context.Context, mt string) {
	st := stateOf(ctx)
	st.req.contentType, st.req.noCT = mt, false
}

func (s *Suite) theRequestDeclaresNoMediaType(ctx context.Context) {
	stateOf(ctx).req.noCT = true
}

func (s *Suite) theResponseMediaTypeIsJSON(ctx context.Context) error {
	st, x, err := s.answered(ctx)
	if err != nil {
		return err
	}
	return s.judged(st, "", x, check.MediaTypeJSON(x.header.Get("Content-Type"), s.redact))
}
