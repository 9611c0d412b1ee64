package conformance

import "github.com/plantcheck/plantcheck/internal/htmlpage"

// badge is a small SVG badge: the spec and the run's standing.
func (r *Report) badge() []byte {
	word, colour := "non-conformant", htmlpage.Fail
	switch {
	case r.Partial():
		word, colour = "partial", htmlpage.Neutral
	case r.ExitCode() == 0:
		word, colour = "conformant", htmlpage.Pass
	case r.ExitCode() == 2:
		word, colour = "incomplete", htmlpage.Warn
	}
	return htmlpage.Badge(r.SpecTitle+" "+r.SpecVersion, word, colour)
}
