@area-auth
Feature: Authentication
  From the specification:
    "The whole interface is protected by an HTTP bearer scheme."
    "Every request carries the header Authorization with the value Bearer
    followed by a space and <ACCESS_TOKEN>."

  The token is the one given to plantcheck (--token or PLANTCHECK_TOKEN);
  plantcheck never prints it. How a token is obtained, its format and its
  lifetime are "not shown", so the suite makes no assumption about them. The
  only error response the document has is 400 with an Error record, so that is
  what a request without valid credentials must get: never 200.

  Each rejected request below is a valid request with only its credentials
  changed: a valid NewPlant body, sent as application/json.

  Background:
    Given a new plant with a fresh id and the name "Sansevieria"

  @AUTH-MISSING @must
  Scenario: A request without an Authorization header is rejected with an Error record
    But the request carries no Authorization header
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-SCHEME @must
  Scenario: The right token in a scheme other than Bearer is rejected with an Error record
    But the request carries the valid token in the "Basic" scheme
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-EMPTY @must
  Scenario: The Bearer scheme with an empty credential is rejected with an Error record
    But the request carries the Bearer scheme with an empty credential
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record

  @AUTH-UNKNOWN @must
  Scenario: A bearer token the service did not issue is rejected with an Error record
    The token is drawn at random for each run, so no service can have issued it.

    But the request carries a bearer token the service did not issue
    When the client posts it to /plants
    Then the response status is 400
    And the response is an Error record
