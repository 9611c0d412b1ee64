package verdict

import (
	"errors"
	"mime"
	"net"
	"strings"

	"github.com/plantcheck/plantcheck/internal/client"
	"github.com/plantcheck/plantcheck/internal/evidence"
	"github.com/plantcheck/plantcheck/internal/exchange"
)

// AnswerOf sets e's kind of answer from the exchange it was seen in, where
// the failure is made: the answer's status and media type, or, when no
// status came, what came instead (NoAnswer).
func (e *Evidence) AnswerOf(x *exchange.Exchange) {
	e.Status, e.MediaType, e.NoAnswer = x.Status, mediaType(x.RespHeader.Get("Content-Type")), ""
	if x.Status == 0 {
		e.MediaType, e.NoAnswer = "", noAnswer(x.Err)
	}
}

// mediaType is a Content-Type without its parameters, lower case; "" for
// none, and the value as sent, cut, when it does not parse.
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(evidence.Text(evidence.Cut(ct, 64)))
}

// noAnswer names what came instead of an answer: the time limit, a
// connection fault (client.FaultOf), or another error of the transport.
func noAnswer(err error) string {
	var ne net.Error
	switch f := client.FaultOf(err); {
	case err == nil:
		return "not sent"
	case errors.As(err, &ne) && ne.Timeout():
		return "time limit"
	case f != client.NoFault:
		return "connection " + f.String()
	}
	return "transport error"
}

// KindUntyped is the kind of a failure whose answer a summary.json
// written before plantcheck recorded its kind does not type: such a file
// cannot serve as a baseline.
const KindUntyped = "an answer of an untyped kind (a summary.json of an older plantcheck)"

// Kind is the failure's kind of answer, from its typed fields: "201
// application/json", "400 with no media type", "no answer (time limit)",
// or "no exchange" for a failure seen in none. Not the wording of
// "actual": which of a scenario's failures a run meets first, and so how
// they read, is the run's draw and its order.
func (e Evidence) Kind() string {
	switch {
	case e.Status != 0:
		return kind{e.Status, e.MediaType}.String()
	case e.NoAnswer != "":
		return "no answer (" + e.NoAnswer + ")"
	case e.Response != "":
		return KindUntyped
	}
	return "no exchange"
}
