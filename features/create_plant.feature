@area-create
Feature: Creating a plant
  The Plant Store has one operation: POST {base_url}/plants creates a plant.

  From the specification:
    "When the request is valid, then the service answers with status 200 and a
    Plant record (name, and tag where present)." (Rule 1)
    "The Plant record has no id field."

  A valid request here is one that keeps every written rule: the client's
  bearer token, the media type application/json, and a NewPlant body with an
  int64 id and an ordinary name.

  The echo is exact: a 200 answered to a valid request carries the very name
  and tag sent, compared as decoded JSON strings, code point by code point,
  no tag when none was sent, and no id. A name trimmed, cut, HTML-escaped,
  normalised, turned into a number or stripped of a character fails
  CREATE-NAME.

  How plantcheck checks: each run draws fresh ids (int64 integers no
  scenario has used before), so a service that refuses to store two plants
  with one id passes, and the suite can run any number of times against the
  same deployment. Whether a name already stored may be sent again is not
  shown either: a valid plant refused with 400 is sent once more under a
  name plantcheck has not used (the same id and presentation, " #<fresh>"
  added to the name), and only a second refusal fails; the verdict notes the
  retry. A plant given "a fresh name beginning" a name has " #<fresh>" added
  to it in every run, so that no plant another scenario or another run
  stored can change how its request is answered (a service that looks a
  name up before it checks the credential or the body). An id or a name of
  the wrong type that a lenient reader turns into one (a string of digits,
  a number, an array of one member, a fraction it cuts) is made of a fresh
  id too: a constant one, stored by the first run, would be refused as a
  duplicate by every later run, and a service that reads it pass.

  How plantcheck checks: every response of every scenario is also checked
  against the OpenAPI document (rule RESPONSE-DOCUMENTED) and must arrive in
  time (RESPONSE-TIMELY).

  How plantcheck checks: the echo is a MUST in every scenario of every
  feature, even in a scenario whose own rule is a SHOULD (an empty tag, a
  10,000-character name, a hostile string): such a rule covers only a
  refusal (400 with an Error record) of a value the spec lets a server
  refuse. A broken echo found in another rule's scenario is shown under
  CREATE-NAME with the scenario that found it: in the failure's heading, the
  verdict's list "Rules broken in scenarios of other rules", summary.json
  (foundBy), summary.md, report.html and the MUST rule's JUnit suite.

  @CREATE-200 @must
  Scenario: A valid request is answered with status 200 and a Plant record
    Given a new plant with a fresh id and the name "Monstera"
    When the client posts it to /plants
    Then the response status is 200
    And the response is a Plant record

  Scenario Outline: A valid request is accepted however it is spelled: <case>
    The spec fixes what a request says, not how its JSON is spelled or its
    HTTP framed. Most clients send compact JSON with the members in one
    order, an Accept header, a User-Agent and a Content-Length; a server
    that needs any of these (a reader built on a regular expression, a body
    read by its Content-Length, content negotiation that insists on Accept,
    a firewall rule that wants a User-Agent) refuses valid requests from
    other clients.

    Given a new plant with a fresh id, the name "Ficus lyrata" and the tag "indoor"
    But the request is presented with <presentation>
    When the client posts it to /plants
    Then the response status is 200
    And the response is a Plant record

    @CREATE-200 @must @varied
    Examples: the same request, spelled otherwise
      | case                    | presentation                                      |
      | members reordered       | its members in reverse order                      |
      | white space             | white space and line breaks between its tokens    |
      | keys as escapes         | its keys written as \u escapes                    |
      | name as escapes         | its name written as \u escapes                    |
      | no Accept header        | no Accept header                                  |
      | Accept */*              | the Accept header */*                             |
      | chunked body            | its body sent in chunks, without a Content-Length |
      | no User-Agent           | no User-Agent header                              |

  @CREATE-NAME @must
  Scenario: The Plant record carries the name that was sent
    Given a new plant with a fresh id and the name "Calathea orbifolia"
    When the client posts it to /plants
    Then the response status is 200
    And the plant's name is the name sent

  @CREATE-TAG @must
  Scenario: The Plant record carries the tag that was sent
    Given a new plant with a fresh id, the name "Ficus lyrata" and the tag "indoor"
    When the client posts it to /plants
    Then the response status is 200
    And the plant's name is the name sent
    And the plant's tag is the tag sent

  @CREATE-NO-TAG @must
  Scenario: A plant sent without a tag comes back without a tag
    The rule says "tag where present": where the request has no tag, the
    Plant record has none either (neither a value nor null).

    Given a new plant with a fresh id and the name "Pilea peperomioides"
    When the client posts it to /plants
    Then the response status is 200
    And the plant has no tag

  @CREATE-NO-ID @must
  Scenario: The Plant record carries no id
    "The Plant record has no id field." The Plant schema does not forbid
    other properties (NewPlant is Plant with an id, so Plant cannot forbid
    one), and a Plant record with an id still matches the document; but the
    spec says in so many words that the record has none. A service that
    answers with the stored entity, id and all, breaks it. Like the echo,
    this is judged on every 200 of every scenario.

    Given a new plant with a fresh id, the name "Aloe vera" and the tag "succulent"
    When the client posts it to /plants
    Then the response status is 200
    And the plant has no id

  @OPEN-REUSED-ID @open
  Scenario: Whether an id already stored may be sent again is left open
    "Further constraints on the fields (length limits, uniqueness of id or
    name, allowed values of tag): not shown." A service may accept a second
    plant with a used id (200) or refuse it (400); either answer is
    conformant if it is a documented response. The answer is noted.

    Given a plant with a fresh id and the name "Basil" has been created
    And a new plant with the same id and the name "Thai basil"
    When the client posts it to /plants
    Then the answer is noted for information

  @OPEN-INTEGRAL-ID @open
  Scenario: Whether an id written as 1.0 is an integer is left open
    In OpenAPI 3.1 (JSON Schema 2020-12) a number with a zero fraction, such as
    2.0, is an integer, so the document accepts it; a service whose JSON reader
    is stricter may refuse it. Either answer is noted, never failed.

    Given a new plant with a fresh id and the name "Mint"
    But the field "id" is the fresh id written with a zero fraction
    When the client posts it to /plants
    Then the answer is noted for information
