@area-responses
Feature: Responses and error records
  From the specification:
    Response 200: "plant response", media type application/json, shape Plant.
    Response 400: "unexpected error", media type application/json, shape Error.
    "Rule: an error response carries both error and message."

    | Error field | Type    | Format | Required |
    | error       | integer | int32  | yes      |
    | message     | string  |        | yes      |

  Which conditions produce 400 beyond the written rules, and what the values of
  error mean, are "not shown": any int32 value and any message will do.

  A header field that HTTP allows once is sent once: an answer with two
  Content-Type fields, even of one value, is not an application/json answer,
  whatever its first says (RESPONSE-MEDIA, RESPONSE-DOCUMENTED); a middleware
  that adds its own Content-Type after the handler's sends two. Two
  Content-Length fields of different values make a broken answer
  (RESPONSE-DOCUMENTED).

  How plantcheck checks: every response in every scenario of this suite, not
  only those of this feature, is checked against the OpenAPI document: a status other
  than 200 or 400, a media type other than application/json, or a body that
  does not match the status's schema fails the scenario under rule
  RESPONSE-DOCUMENTED. Repeated fields are looked for on every answer too (a
  check that reads the first field alone, the validator's among them, cannot
  see them), and in plantcheck proxy.

  How plantcheck checks: an answer that does not arrive within the run's time
  limit fails under RESPONSE-TIMELY, and so does a connection the target
  resets or closes with no answer, when it does so again to the same request
  sent alone on a fresh connection: a server may close an idle kept-alive
  connection at any time (RFC 9112, section 9.6), so a fault that a fresh
  connection does not meet is no verdict.

  Background:
    Given a new plant with a fresh id and a fresh name beginning "Zamioculcas"

  @ERROR-RECORD @must
  Scenario: An error response carries both error and message
    But the field "id" is left out
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @RESPONSE-JSON-TEXT @must
  Scenario: A response is JSON text with no byte order mark before it
    RFC 8259 (section 8.1): "Implementations MUST NOT add a byte order mark
    (U+FEFF) to the beginning of a networked-transmitted JSON text." A PHP
    file saved with the mark sends it before any output, and a writer set to
    encode with a preamble writes it first. The judge reads every answer of
    every scenario for it; this scenario's answers are a Plant record and an
    Error record.

    When the client posts it to /plants
    Then the response status is 200
    But the field "name" is left out
    When the client posts it to /plants
    Then the response status is 400

  Scenario Outline: <kind> is the documented one
    But <change>
    When the client posts it to /plants
    Then the response status is <status>
    And the response conforms to the document

    @RESPONSE-DOCUMENTED @must
    Examples: responses are documented
      | kind                | change                                | status |
      | A success response  | nothing else is changed               | 200    |
      | An error response   | the field "name" is the JSON value 7  | 400    |

  @RESPONSE-TIMELY @must
  Scenario: Every answer arrives within the time limit
    When the client posts it to /plants
    Then the response arrived within the time limit
