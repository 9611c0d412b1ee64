@area-media
Feature: Media types
  From the specification:
    "All requests and responses use JSON (media type application/json)."
    Request body: "Required. Media type application/json."

  Parameters of the media type, such as charset=utf-8, are allowed. Each
  rejected request below carries a valid NewPlant body and valid credentials:
  only its declared media type is wrong. A media type that merely contains
  "json", or begins with "application/json", is another media type: a check
  by substring or prefix lets it through.

  Background:
    Given a new plant with a fresh id and a fresh name beginning "Ficus elastica"

  Scenario Outline: A valid JSON body declared as <case> is rejected with an Error record
    But <change>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @MEDIA-REQUEST @must
    Examples: the request body is application/json
      | case                          | change                                                        |
      | text/plain                    | the request declares the media type "text/plain"              |
      | no media type                 | the request declares no media type                            |
      | text/json                     | the request declares the media type "text/json"               |
      | application/x-json            | the request declares the media type "application/x-json"      |
      | application/json-patch+json   | the request declares the media type "application/json-patch+json" |

  Scenario Outline: The plant sent as <case> is rejected with an Error record
    A form carries the same fields as the JSON record, and a service built
    on a web framework often reads forms as well as JSON (a form parser
    beside the JSON one, a binder that takes either). But the request body
    is application/json, and a form is not: it is refused like any other
    media type.

    But the plant is sent as <form>
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

    @MEDIA-REQUEST @must
    Examples: the request body is JSON, not a form
      | case                                   | form                |
      | a form, application/x-www-form-urlencoded | a URL-encoded form  |
      | a form, multipart/form-data            | a multipart form    |

  Scenario Outline: application/json with a charset parameter is accepted: <case>
    A parameter does not change the media type (RFC 9110, section 8.3.1),
    and RFC 8259 says of application/json that adding a charset "really has
    no effect on compliant recipients". Many clients send one (Java's and
    Spring's write "application/json;charset=UTF-8"); a service that
    compares the header with "application/json" as a string refuses them.

    But the request declares the media type "<media type>"
    When the client posts it to /plants
    Then the response status is 200
    And the response media type is application/json

    @MEDIA-REQUEST-PARAMS @must
    Examples: application/json, with parameters
      | case                          | media type                      |
      | charset=utf-8                 | application/json; charset=utf-8 |
      | charset=UTF-8, without space  | application/json;charset=UTF-8  |

  Scenario Outline: application/json as HTTP spells it equally is accepted: <case>
    RFC 9110 makes these spellings one media type: "The type and subtype
    tokens are case-insensitive" (section 8.3.1); "Parameter names are
    case-insensitive", and the charset value is too (section 8.3.2); "A
    parameter value that matches the token production can be transmitted
    either as a token or within a quoted-string. The quoted and unquoted
    values are equivalent"; and white space (OWS) may stand on either side
    of the ";". Every media type parser of the frameworks real services
    stand on reads them so (Go's mime.ParseMediaType, Node's content-type,
    Python's email and werkzeug). A service that compares the header with
    "==", matches it with a hand-written pattern, or lower-cases only the
    parameter refuses valid requests from the clients that write it so.

    Only what the RFC calls equal is sent. A tab as that white space, and
    an empty parameter after a ";", are equal by the RFC's grammar too, but
    Node's content-type parser (under Express, Koa and body-parser) refuses
    both: they are not sent, lest a service on its defaults fail.

    But the request declares the media type "<media type>"
    When the client posts it to /plants
    Then the response status is 200
    And the response is a Plant record

    @MEDIA-REQUEST-PARAMS @must @http-equal
    Examples: what RFC 9110 calls application/json
      | case                                 | media type                        |
      | type and subtype in capitals         | Application/JSON                  |
      | a quoted charset                     | application/json;charset="utf-8"  |
      | white space before the ";"           | application/json ; charset=utf-8  |
      | the parameter's name in capitals     | application/json;CHARSET=UTF-8    |
      | charset=utf-8, without space         | application/json;charset=utf-8    |

  Scenario Outline: An Accept header that admits application/json is accepted: <case>
    The spec says every answer is JSON; it says nothing of the Accept
    header, so a request is valid whatever it carries, and rule 1 has a
    valid request answered 200. An Accept that admits application/json, in
    any spelling RFC 9110 calls equal, asks for what the service sends: the
    type and subtype in any letter case (section 8.3.1), with parameters or
    a weight, in a list beside other types, or as a range that holds it
    (section 12.5.1). A service that looks for the string application/json
    in the header, or compares it with "==", refuses valid requests from the
    clients that write it so (curl, browsers, API clients).

    But the request accepts "<accept>"
    When the client posts it to /plants
    Then the response status is 200
    And the response is a Plant record

    @MEDIA-ACCEPT @must
    Examples: what admits application/json
      | case                         | accept                          |
      | type and subtype in capitals | Application/JSON                |
      | a weight                     | application/json;q=0.9          |
      | a charset                    | application/json; charset=utf-8 |
      | in a list                    | text/html, application/json     |
      | the range application/*      | application/*                   |
      | the range */*, weighted      | */*;q=0.1                       |

  @OPEN-ACCEPT-OTHER @open
  Scenario: What a service answers to an Accept that admits no JSON is left open
    An Accept of text/html alone asks for what the service never sends.
    The spec says every answer is JSON and nothing of the Accept header, so
    it does not say what a service answers then: it may ignore the header
    and answer 200 with a Plant record (most do), refuse the request with
    400 and an Error record, or answer 406 Not Acceptable, as RFC 9110 lets
    a server that cannot send what was asked for (section 15.5.7). Each is
    noted, never failed; a 406 is judged neither for its status nor for its
    body, which RFC 9110 leaves to the server. Any other answer (a 500, an
    HTML page) is still judged as every answer is, against the document
    (RESPONSE-DOCUMENTED, RESPONSE-MEDIA), and a 200 is judged in full (the
    echo).

    But the request accepts "text/html"
    When the client posts it to /plants
    Then the answer is noted for information

  @RESPONSE-MEDIA @must
  Scenario: A Plant record is sent as application/json
    When the client posts it to /plants
    Then the response status is 200
    And the response media type is application/json

  @RESPONSE-MEDIA @must
  Scenario: An Error record is sent as application/json
    But the field "name" is left out
    When the client posts it to /plants
    Then the response status is 400
    And the response media type is application/json
