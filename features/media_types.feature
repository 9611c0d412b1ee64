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
    Given a new plant with a fresh id and the name "Ficus elastica"

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

  @MEDIA-REQUEST-PARAMS @should
  Scenario: application/json with a charset parameter is accepted
    But the request declares the media type "application/json; charset=utf-8"
    When the client posts it to /plants
    Then the response status is 200
    And the response media type is application/json

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
